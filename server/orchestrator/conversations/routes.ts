import type { Call, Handler } from '../../platform/http/operations.ts';
import { pageRequest } from '../../platform/http/pagination.ts';
import { created, ok } from '../../platform/http/reply.ts';
import type { Conversations } from './service.ts';

export function conversationRoutes(conversations: Conversations): Record<string, Handler> {
  const me = (call: Call) => call.principal!.userId!;
  return {
    createConversation: async (call) => created(await conversations.create(me(call), { ...call.body, body: call.body.message })),
    listConversations: async (call) => {
      const { items, meta } = await conversations.list(me(call), pageRequest(call.query), call.query.q);
      return ok(items, { ...meta });
    },
    getConversation: async (call) => ok(await conversations.get(me(call), call.params.id)),
    listConversationMessages: async (call) => {
      const { items, meta } = await conversations.messages(me(call), call.params.id, pageRequest(call.query), call.query.since);
      return ok(items, { ...meta });
    },
    postConversationMessage: async (call) => created(await conversations.post(me(call), call.params.id, call.body)),
    broadcastConversation: async (call) => ok(await conversations.broadcast(me(call), { ...call.body, body: call.body.message })),
  };
}
