// The catalogue module's face: the only file other modules import from it. The catalogue is what the
// platform's admins keep for everyone: sectors, trades and their NOS documents (levels, units, learning
// outcomes), the platform config and policies, templates, and the awarding bodies that certify trades.
// Tables: sectors, trades, nos_documents, qualification_levels, units, learning_outcomes,
// platform_config_versions, policy_versions, downloadable_templates, workflow_template_versions,
// awarding_bodies, awarding_body_members.
import type { Sequelize, Transaction } from 'sequelize';
import type { OrchestratorHttp } from '../../contracts/orchestrator-client.ts';
import type { ApplicationType } from '../applications/index.ts';
import type { People } from '../people/index.ts';
import { awardingBodyRoutes } from './awarding-bodies/routes.ts';
import { createAwardingBodies } from './awarding-bodies/service.ts';
import { platformConfigRoutes } from './platform-config/routes.ts';
import { createPlatformConfig } from './platform-config/service.ts';
import { createCatalogueReads } from './reads.ts';
import { catalogueRoutes } from './routes.ts';
import { createCatalogue as createCatalogueService } from './service.ts';
import { templateRoutes } from './templates/routes.ts';
import { createTemplates } from './templates/service.ts';
import { workflowInForce, type StagesOfLifecycle } from './templates/workflow.ts';

export type { NosDocument, QualificationLevel, Sector, Trade, Unit } from './models.ts';
export type { PlatformConfig } from './platform-config/service.ts';
export { catalogueSql } from './sql.ts';
export { deadlineOf, type StagesOfLifecycle, type WorkflowTemplate } from './templates/workflow.ts';

export interface CatalogueDeps {
  sequelize: Sequelize;
  files: Pick<OrchestratorHttp, 'assetUrls' | 'ownsAsset'>;
}

/** What the catalogue needs of the other modules. */
export interface CatalogueNeeds {
  people: People;
  /** The application lifecycle's stages, which workflow templates present and pace (applications). */
  lifecycle: StagesOfLifecycle;
  /** How many applications name a trade (applications). */
  applicationCountOf(tradeId: string): Promise<number>;
}

/**
 * The catalogue module: the public catalogue and its editing, the platform config and policies,
 * templates and awarding bodies, and the reads the other modules make of them.
 */
export function createCatalogue(deps: CatalogueDeps, needs: CatalogueNeeds) {
  const { sequelize, files } = deps;
  const { auth, roles, contexts, provisionMember } = needs.people;
  const catalogue = createCatalogueService(sequelize);
  const platformConfig = createPlatformConfig(sequelize);
  const awardingBodies = createAwardingBodies(sequelize, provisionMember, files.assetUrls);
  const templates = createTemplates({
    sequelize,
    assetUrls: files.assetUrls,
    ownsAsset: files.ownsAsset,
    lifecycle: needs.lifecycle,
  });

  return {
    handlers: {
      ...catalogueRoutes(auth, roles, catalogue, needs.applicationCountOf),
      ...platformConfigRoutes(auth, roles, platformConfig),
      ...templateRoutes(auth, roles, templates),
      ...awardingBodyRoutes(auth, roles, contexts, awardingBodies),
    },

    ...createCatalogueReads(sequelize, catalogue.models),
    /** What the platform applies now: price floors by application type and its fee. */
    currentConfig: platformConfig.current,
    /** The workflow template in force for an application type. */
    workflowInForce: (type: ApplicationType, transaction?: Transaction) =>
      workflowInForce(sequelize, needs.lifecycle, type, transaction),
    awardingBodies: {
      /** Awarding-body memberships, as the people module's invitations and first calls handle them. */
      membershipKind: awardingBodies.membershipKind,
      nameOf: awardingBodies.nameOf,
      ofTrade: awardingBodies.ofTrade,
      activeBodiesOf: awardingBodies.activeBodiesOf,
      isActiveMember: awardingBodies.isActiveMember,
    },
  };
}

export type Catalogue = ReturnType<typeof createCatalogue>;
