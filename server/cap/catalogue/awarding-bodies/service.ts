import { QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import { conflict, forbidden, notFound, unprocessable } from '../../../platform/http/errors.ts';
import { prepared } from '../../../platform/db/prepared.ts';
import { newId } from '../../../platform/ids.ts';
import { membershipWriter, type MembershipKind, type NewMember, type ProvisionMember } from '../../people/index.ts';
import type { AssetUrls } from '../../../contracts/orchestrator-client.ts';
import {
  defineAwardingBodyModels,
  type AwardingBody,
  type AwardingBodyMember,
  type AwardingBodyRole,
} from './models.ts';

export interface NewAwardingBody {
  name: string;
  registrationNo: string;
  logoAssetId?: string | null;
  /** Its first admin, who can then invite its staff. */
  admin: { name: string; email: string };
}

const bodyOf = (body: AwardingBody, logo: string | null) => ({
  id: body.id,
  name: body.name,
  registrationNo: body.registrationNo,
  logoAssetId: body.logoAssetId,
  logo,
  createdAt: body.createdAt.toISOString(),
});

const memberOf = (row: AwardingBodyMember) => ({
  id: row.id,
  awardingBodyId: row.awardingBodyId,
  email: row.email,
  ...(row.name ? { name: row.name } : {}),
  role: row.role,
  status: row.status,
  createdAt: row.createdAt.toISOString(),
});

/**
 * Awarding bodies: made by platform admins with their first admin (provisioned through the
 * Orchestrator, all or nothing), who invites the body's staff. Its people hold the awarding_body persona.
 */
export function createAwardingBodies(sequelize: Sequelize, provisionMember: ProvisionMember, assetUrls: AssetUrls) {
  const models = defineAwardingBodyModels(sequelize);
  const statement = prepared(sequelize);
  const { AwardingBody, AwardingBodyMember } = models;
  const members = membershipWriter(AwardingBodyMember);
  const alreadyMember = () =>
    conflict('awarding_body.member_exists', 'This person already belongs to this awarding body.');

  /** Takes someone on, in one transaction with `prepare` (creating the body, for the admins). */
  async function addMember(
    body: { id: string; name: string },
    person: NewMember & { role: AwardingBodyRole },
    prepare?: (transaction: Transaction) => Promise<unknown>,
  ) {
    const email = person.email.trim().toLowerCase();
    const id = newId();
    try {
      return await sequelize.transaction(async (transaction) => {
        await prepare?.(transaction);
        if ((await AwardingBodyMember.count({ where: { awardingBodyId: body.id, email }, transaction })) > 0)
          throw alreadyMember();
        const member = await provisionMember(transaction, person, { name: body.name, correlationId: id });
        return (await members.create(
          transaction,
          member.letIn ? 'admit' : 'invite',
          {
            id,
            awardingBodyId: body.id,
            userId: member.userId,
            name: person.name.trim() || null,
            email,
            role: person.role,
            requiresAcceptance: member.invited,
          },
          { by: 'admin' },
        ))!;
      });
    } catch (err) {
      if (err instanceof UniqueConstraintError) {
        const taken = (err.fields as Record<string, unknown> | undefined)?.registration_no !== undefined;
        throw taken
          ? conflict('awarding_body.registration_taken', 'An awarding body with this registration number exists.')
          : alreadyMember();
      }
      throw err;
    }
  }

  const kind: MembershipKind<AwardingBodyMember> = {
    kind: 'awarding_body',
    Model: AwardingBodyMember,
    async organisationOf(row, transaction) {
      const body = (await AwardingBody.findByPk(row.awardingBodyId, { transaction }))!;
      return { id: body.id, name: body.name };
    },
  };

  return {
    models,

    /** The awarding-body memberships, as invitations and first calls handle them. */
    membershipKind: kind as unknown as MembershipKind,

    async create(adminId: string, input: NewAwardingBody) {
      const id = newId();
      const name = input.name.trim();
      const admin = await addMember({ id, name }, { ...input.admin, role: 'admin' }, (transaction) =>
        AwardingBody.create(
          {
            id,
            name,
            registrationNo: input.registrationNo.trim(),
            logoAssetId: input.logoAssetId ?? null,
            createdBy: adminId,
          },
          { transaction },
        ),
      );
      const body = (await AwardingBody.findByPk(id))!;
      return { ...bodyOf(body, (await assetUrls([body.logoAssetId]))(body.logoAssetId)), admin: memberOf(admin) };
    },

    async list() {
      const bodies = await AwardingBody.findAll({
        order: [
          ['name', 'ASC'],
          ['id', 'ASC'],
        ],
      });
      const urlOf = await assetUrls(bodies.map((body) => body.logoAssetId));
      return bodies.map(({ id, name, registrationNo, logoAssetId }) => ({
        id,
        name,
        registrationNo,
        logoAssetId,
        logo: urlOf(logoAssetId),
      }));
    },

    /** A platform admin names the awarding body that certifies a trade (null: none). */
    async setTradeAwardingBody(tradeId: string, awardingBodyId: string | null) {
      const [trade] = await sequelize.query('SELECT 1 FROM cap.trades WHERE id = $1', {
        type: QueryTypes.SELECT,
        bind: [tradeId],
      });
      if (!trade) throw notFound(`No trade has the id ${tradeId}.`);
      if (awardingBodyId && !(await AwardingBody.findByPk(awardingBodyId, { attributes: ['id'] }))) {
        throw unprocessable('validation.failed', 'No awarding body has that id.', [
          { field: 'awardingBodyId', issue: 'is not an awarding body' },
        ]);
      }
      await sequelize.query('UPDATE cap.trades SET awarding_body_id = $2 WHERE id = $1', {
        bind: [tradeId, awardingBodyId],
      });
      return { tradeId, awardingBodyId };
    },

    /** The awarding body that certifies the trade, or null. */
    async ofTrade(tradeId: string, transaction?: Transaction): Promise<string | null> {
      const [trade] = await sequelize.query<{ awarding_body_id: string | null }>(
        'SELECT awarding_body_id FROM cap.trades WHERE id = $1',
        { type: QueryTypes.SELECT, bind: [tradeId], transaction },
      );
      return trade?.awarding_body_id ?? null;
    },

    /** The awarding body's name, or null for no such body. */
    nameOf: async (id: string) => (await AwardingBody.findByPk(id, { attributes: ['name'] }))?.name ?? null,

    /** The awarding bodies the user is an active member of. */
    async activeBodiesOf(userId: string): Promise<string[]> {
      return (
        await AwardingBodyMember.findAll({ where: { userId, status: 'active' }, attributes: ['awardingBodyId'] })
      ).map((row) => row.awardingBodyId);
    },

    /** Whether the user is an active member of the awarding body. */
    async isActiveMember(awardingBodyId: string, userId: string, transaction?: Transaction): Promise<boolean> {
      const rows = await statement(
        `SELECT 1 FROM cap.awarding_body_members WHERE awarding_body_id = $1 AND user_id = $2 AND status = 'active' LIMIT 1`,
        [awardingBodyId, userId],
        transaction,
      );
      return rows.length > 0;
    },

    /** An admin of the body invites someone as its staff; the answer is the same whether or not they had an account. */
    async inviteStaff(callerId: string, input: { awardingBodyId: string; email: string; name?: string }) {
      const body = await AwardingBody.findByPk(input.awardingBodyId);
      if (!body) throw notFound(`No awarding body has the id ${input.awardingBodyId}.`);
      const caller = await AwardingBodyMember.findOne({
        where: { awardingBodyId: body.id, userId: callerId, status: 'active' },
      });
      if (!caller) throw forbidden('auth.out_of_scope', 'You are not a member of this awarding body.');
      if (caller.role !== 'admin')
        throw forbidden('awarding_body.role_forbidden', 'Only an admin of the awarding body can invite its staff.');
      return memberOf(
        await addMember(
          { id: body.id, name: body.name },
          { email: input.email, name: input.name ?? '', role: 'staff' },
        ),
      );
    },
  };
}

export type AwardingBodies = ReturnType<typeof createAwardingBodies>;
