import { Op, QueryTypes } from 'sequelize';
import { forbidden, unprocessable } from '../../../platform/http/errors.ts';
import type { CentreService } from '../service.ts';
import type { CentreContext } from '../../people/context/service.ts';
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
export function createBroadcasts(centres: CentreService, send: OrchestratorHttp['broadcast']) {
  const { CentreStaff } = centres.models;
  const sequelize = CentreStaff.sequelize!;

  const groups: Record<Exclude<RecipientGroup, 'all_staff'>, string> = {
    all_candidates: `SELECT DISTINCT candidate_user_id AS "userId" FROM cap.applications WHERE centre_id = $1 AND status <> 'draft' AND candidate_user_id <> $2`,
    trade_group: `SELECT DISTINCT candidate_user_id AS "userId" FROM cap.applications WHERE centre_id = $1 AND status <> 'draft' AND candidate_user_id <> $2 AND trade_id = $3`,
    all_assessors: `SELECT DISTINCT p.user_id AS "userId" FROM cap.retained_requests r JOIN cap.assessor_profiles p ON p.id = r.assessor_id
                     WHERE r.centre_id = $1 AND r.status = 'approved' AND p.user_id <> $2`,
  };

  async function recipientsOf(context: CentreContext, senderId: string, group: RecipientGroup, tradeId?: string): Promise<string[]> {
    if (group === 'all_staff') {
      const rows = await CentreStaff.findAll({
        where: { centreId: context.centreId, status: 'active', userId: { [Op.ne]: senderId } },
        attributes: ['userId'],
        order: [['id', 'ASC']],
      });
      return rows.map((row) => row.userId);
    }
    const bind = group === 'trade_group' ? [context.centreId, senderId, tradeId] : [context.centreId, senderId];
    const rows = await sequelize.query<{ userId: string }>(`${groups[group]} ORDER BY 1`, { type: QueryTypes.SELECT, bind });
    return rows.map((row) => row.userId);
  }

  return {
    async send(context: CentreContext, senderId: string, input: BroadcastInput) {
      if (context.role === 'staff') throw forbidden('centre.role_forbidden', 'Only super admins and regular admins of the centre can broadcast.');
      if (input.recipientGroup === 'trade_group' && !input.tradeId) {
        throw unprocessable('validation.failed', 'A trade group broadcast names its trade.', [{ field: 'tradeId', issue: 'is required with recipientGroup trade_group' }]);
      }
      const recipientIds = await recipientsOf(context, senderId, input.recipientGroup, input.tradeId);
      if (!recipientIds.length) {
        throw unprocessable('centre.broadcast_no_recipients', `Nobody at this centre is in the group ${input.recipientGroup}: nothing was sent.`, [
          { field: 'recipientGroup', issue: 'has no one in it' },
        ]);
      }
      const sent = await send({ senderId, recipientIds, message: input.message, ...(input.subject ? { subject: input.subject } : {}) });
      return { message: sent.message, recipients: sent.recipientCount };
    },
  };
}

export type Broadcasts = ReturnType<typeof createBroadcasts>;
