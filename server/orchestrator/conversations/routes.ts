import { unprocessable } from '../../platform/http/errors.ts';
import type { operations } from '../../contracts/openapi/ol.ts';
import type { Call, Handlers } from '../../platform/http/operations.ts';
import { pageRequest } from '../../platform/http/pagination.ts';
import { created, ok } from '../../platform/http/reply.ts';
import type { Conversations } from './service.ts';

/** A service caller (CAP, with the service key) names the sender; a user is the sender. */
function broadcastSender(call: Call, senderId: string | undefined): string {
  if (call.principal!.kind === 'service') {
    if (!senderId)
      throw unprocessable(
        'conversation.sender_required',
        'Name the sender (senderId) when calling with the service key.',
        [{ field: 'senderId', issue: 'is required' }],
      );
    return senderId;
  }
  const me = call.principal!.userId!;
  if (senderId && senderId !== me)
    throw unprocessable('conversation.sender_not_allowed', 'You can only send as yourself.', [
      { field: 'senderId', issue: 'is not you' },
    ]);
  return me;
}

export function conversationRoutes(conversations: Conversations): Handlers<operations> {
  const me = (call: Call) => call.principal!.userId!;
  return {
    createConversation: async (call) =>
      created(await conversations.create(me(call), { ...call.body, body: call.body.message })),
    listConversations: async (call) => {
      const { items, meta } = await conversations.list(me(call), pageRequest(call.query), call.query.q);
      return ok(items, { ...meta });
    },
    getConversation: async (call) => ok(await conversations.get(me(call), call.params.id)),
    listConversationMessages: async (call) => {
      const { items, meta } = await conversations.messages(
        me(call),
        call.params.id,
        pageRequest(call.query),
        call.query.since,
      );
      return ok(items, { ...meta });
    },
    postConversationMessage: async (call) => created(await conversations.post(me(call), call.params.id, call.body)),
    broadcastConversation: async (call) => {
      const { senderId, ...input } = call.body;
      return ok(await conversations.broadcast(broadcastSender(call, senderId), { ...input, body: input.message }));
    },
  };
}
