import { Op } from 'sequelize';
import { forbidden, unprocessable } from '../../../platform/http/errors.ts';
import type { CentreService } from '../service.ts';
import type { CentreContext } from '../../people/index.ts';
import type { OrchestratorHttp } from '../../../contracts/orchestrator-client.ts';

export type RecipientGroup = 'all_candidates' | 'all_assessors' | 'all_staff' | 'trade_group';

export interface BroadcastInput {
  recipientGroup: RecipientGroup;
  tradeId?: string;
  message: string;
  subject?: string;
}

/**
 * A centre's broadcast: CAP works out who is in the group, and the Orchestrator starts one thread per
 * recipient from the sender. A centre's candidates are those with an application there past its draft
 * (`trade_group`: in that trade); its assessors are those it retains (an approved retained request).
 */
/** Who a broadcast reaches beyond the staff, by user id in order, the sender left out (the modules that know). */
export interface BroadcastAudiences {
  /** The centre's candidates: an application there past its draft (in the trade, when given). */
  candidatesOf(centreId: string, senderId: string, tradeId?: string): Promise<string[]>;
  /** The assessors the centre retains. */
  assessorsOf(centreId: string, senderId: string): Promise<string[]>;
}

export function createBroadcasts(
  centres: CentreService,
  send: OrchestratorHttp['broadcast'],
  audiences: BroadcastAudiences,
) {
  const { CentreStaff } = centres.models;

  async function recipientsOf(
    context: CentreContext,
    senderId: string,
    group: RecipientGroup,
    tradeId?: string,
  ): Promise<string[]> {
    if (group === 'all_staff') {
      const rows = await CentreStaff.findAll({
        where: { centreId: context.centreId, status: 'active', userId: { [Op.ne]: senderId } },
        attributes: ['userId'],
        order: [['id', 'ASC']],
      });
      return rows.map((row) => row.userId);
    }
    if (group === 'all_assessors') return audiences.assessorsOf(context.centreId, senderId);
    return audiences.candidatesOf(context.centreId, senderId, group === 'trade_group' ? tradeId : undefined);
  }

  return {
    async send(context: CentreContext, senderId: string, input: BroadcastInput) {
      if (context.role === 'staff')
        throw forbidden('centre.role_forbidden', 'Only super admins and regular admins of the centre can broadcast.');
      if (input.recipientGroup === 'trade_group' && !input.tradeId) {
        throw unprocessable('validation.failed', 'A trade group broadcast names its trade.', [
          { field: 'tradeId', issue: 'is required with recipientGroup trade_group' },
        ]);
      }
      const recipientIds = await recipientsOf(context, senderId, input.recipientGroup, input.tradeId);
      if (!recipientIds.length) {
        throw unprocessable(
          'centre.broadcast_no_recipients',
          `Nobody at this centre is in the group ${input.recipientGroup}: nothing was sent.`,
          [{ field: 'recipientGroup', issue: 'has no one in it' }],
        );
      }
      const sent = await send({
        senderId,
        recipientIds,
        message: input.message,
        ...(input.subject ? { subject: input.subject } : {}),
      });
      return { message: sent.message, recipients: sent.recipientCount };
    },
  };
}

export type Broadcasts = ReturnType<typeof createBroadcasts>;
