import { Op } from 'sequelize';
import { forbidden, unprocessable } from '../../platform/http/errors.ts';
import type { CentreService } from '../centres/service.ts';
import type { CentreContext } from '../context/service.ts';
import type { OrchestratorHttp } from '../orchestrator.ts';

export type RecipientGroup = 'all_candidates' | 'all_assessors' | 'all_staff' | 'trade_group';

export interface BroadcastInput {
  recipientGroup: RecipientGroup;
  tradeId?: string;
  message: string;
  subject?: string;
}

/**
 * A centre's broadcast: CAP works out who is in the group, and the Orchestrator starts one thread per
 * recipient from the sender. Only staff belong to a centre today; candidates, assessors and trade
 * groups come with applications and rosters, so those groups have nobody in them yet.
 */
export function createBroadcasts(centres: CentreService, send: OrchestratorHttp['broadcast']) {
  const { CentreStaff } = centres.models;

  async function recipientsOf(context: CentreContext, senderId: string, group: RecipientGroup): Promise<string[]> {
    if (group !== 'all_staff') return [];
    const rows = await CentreStaff.findAll({
      where: { centreId: context.centreId, status: 'active', userId: { [Op.ne]: senderId } },
      attributes: ['userId'],
      order: [['id', 'ASC']],
    });
    return rows.map((row) => row.userId);
  }

  return {
    async send(context: CentreContext, senderId: string, input: BroadcastInput) {
      if (context.role === 'staff') throw forbidden('centre.role_forbidden', 'Only super admins and regular admins of the centre can broadcast.');
      if (input.recipientGroup === 'trade_group' && !input.tradeId) {
        throw unprocessable('validation.failed', 'A trade group broadcast names its trade.', [{ field: 'tradeId', issue: 'is required with recipientGroup trade_group' }]);
      }
      const recipientIds = await recipientsOf(context, senderId, input.recipientGroup);
      if (!recipientIds.length) {
        throw unprocessable('centre.broadcast_no_recipients', `Nobody at this centre is in the group ${input.recipientGroup} yet: nothing was sent.`, [
          { field: 'recipientGroup', issue: 'has no one in it' },
        ]);
      }
      const sent = await send({ senderId, recipientIds, message: input.message, ...(input.subject ? { subject: input.subject } : {}) });
      return { message: sent.message, recipients: sent.recipientCount };
    },
  };
}

export type Broadcasts = ReturnType<typeof createBroadcasts>;
