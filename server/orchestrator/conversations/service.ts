/**
 * Conversations: threads between users, read only by their participants (anyone else gets 404),
 * polled with a cursor. Each new message notifies the other participants through the one send path:
 * in the inbox always; by email or SMS only when the sender asks and the platform allows it
 * (CONVERSATION_NOTIFY_EMAIL, CONVERSATION_NOTIFY_SMS).
 */
import { Op, QueryTypes, type Transaction } from 'sequelize';
import type { PlatformConfig } from '../../platform/config.ts';
import { notFound, unprocessable } from '../../platform/http/errors.ts';
import { isoTime } from '../../platform/db/iso-time.ts';
import { Conditions, keysetRows, statementName } from '../../platform/db/keyset.ts';
import { containing } from '../../platform/db/like.ts';
import { preparedReads } from '../../platform/db/prepared.ts';
import { encodeCursor, type PageRequest } from '../../platform/http/pagination.ts';
import { newId } from '../../platform/ids.ts';
import type { ServiceDeps } from '../../platform/service.ts';
import type { UserStatus } from '../accounts/models.ts';
import { accountsSql } from '../accounts/sql.ts';
import type { Channel } from '../notifications/models.ts';
import type { NotificationRequest } from '../notifications/service.ts';
import type { ResolvedAsset } from '../storage/service.ts';
import { defineConversationModels, type Attachment, type ConversationRow, type MessageRow } from './models.ts';

export interface ConversationsDeps extends Pick<ServiceDeps, 'config' | 'sequelize'> {
  userContacts(userIds: string[]): Promise<Map<string, { status: UserStatus; email: string }>>;
  notify(transaction: Transaction, request: NotificationRequest): Promise<string>;
  resolveAssets(
    caller: { kind: 'user'; userId: string } | { kind: 'service' },
    assetIds: string[],
  ): Promise<ResolvedAsset[]>;
}

export interface NewMessage {
  body: string;
  attachments?: Attachment[];
  notify?: { channels?: Channel[] };
}

export type Conversations = ReturnType<typeof createConversations>;

const noThread = () => notFound('No such conversation.');

/** A message as a statement reads it with its sender's address (accountsSql), its time as the wire writes it. */
interface ReadMessage {
  id: string;
  conversationId: string;
  senderId: string;
  senderEmail: string | null;
  body: string;
  attachments: Attachment[];
  createdAt: string;
}

/**
 * A thread as its page reads it (`threadColumns`): with the other participant, the reader's unread
 * count and the last message's columns (all null without one), its sender's address among them.
 */
interface ThreadRow {
  id: string;
  subject: string | null;
  createdAt: string;
  updatedAt: string;
  recipientId: string | null;
  recipientEmail: string | null;
  lastRead: string | null;
  unread: number;
  lastId: string | null;
  lastSenderId: string;
  lastSenderEmail: string | null;
  lastBody: string;
  lastAttachments: Attachment[];
  lastCreatedAt: string;
}

/**
 * The threads of the reader whose id is the SQL expression `reader`, as `c`: each joined to the
 * reader's participation `me`, the other participant `other` with their address (one each, so one
 * row a thread) and the last message `l`.
 */
const threadsOf = (reader: string) => `ol.conversations c
  JOIN ol.conversation_participants me ON me.conversation_id = c.id AND me.user_id = ${reader}
  LEFT JOIN LATERAL (SELECT p.user_id, u.email FROM ol.conversation_participants p ${accountsSql.joinUser('u', 'p.user_id')}
      WHERE p.conversation_id = c.id AND p.user_id <> ${reader} LIMIT 1) other ON true
  LEFT JOIN ol.conversation_messages l ON l.id = c.last_message_id`;

/**
 * The columns of ThreadRow, of the threads `threadsOf` reads, for the reader whose id is the SQL
 * expression `reader`. The last message's sender is mostly the other participant or the reader, whose
 * addresses are at hand: looking each sender up again cost the page a third of its database time.
 */
const threadColumns = (reader: string) =>
  `c.id, c.subject, ${isoTime('c.created_at')} AS "createdAt", ${isoTime('c.updated_at')} AS "updatedAt",
  other.user_id AS "recipientId", other.email AS "recipientEmail",
  me.last_read_message_id AS "lastRead",
  (SELECT count(*)::int FROM ol.conversation_messages m WHERE m.conversation_id = c.id AND m.sender_id <> ${reader}
      AND m.id > coalesce(me.last_read_message_id, '')) AS unread,
  l.id AS "lastId", l.sender_id AS "lastSenderId",
  CASE l.sender_id WHEN other.user_id THEN other.email WHEN ${reader} THEN ${accountsSql.email(reader)}
    ELSE ${accountsSql.email('l.sender_id')} END AS "lastSenderEmail",
  l.body AS "lastBody", l.attachments AS "lastAttachments", ${isoTime('l.created_at')} AS "lastCreatedAt"`;

/** The channels a conversation notice goes by: in_app always; email and SMS only if asked for and enabled. */
export function clampChannels(
  config: Pick<PlatformConfig, 'conversationEmail' | 'conversationSms'>,
  asked: Channel[] = [],
): Channel[] {
  const enabled: Record<Channel, boolean> = {
    in_app: true,
    email: config.conversationEmail,
    sms: config.conversationSms,
  };
  return ['in_app', ...asked.filter((c) => c !== 'in_app' && enabled[c])].filter(
    (c, i, all) => all.indexOf(c) === i,
  ) as Channel[];
}

export function createConversations(deps: ConversationsDeps) {
  const { sequelize, config } = deps;
  const { Conversation, Participant, Message } = defineConversationModels(sequelize);
  const read = preparedReads(sequelize);

  const userContact = async (userId: string) => (await deps.userContacts([userId])).get(userId) ?? null;

  async function activeUser(userId: string) {
    const contact = await userContact(userId);
    return contact?.status === 'active' ? contact : null;
  }

  /** Attachments that name a storage asset must be the sender's own, ready asset. */
  async function checkAttachments(senderId: string, attachments: Attachment[] = []): Promise<Attachment[]> {
    const ids = attachments.flatMap((a) => (a.id ? [a.id] : []));
    const own = new Set(
      (ids.length ? await deps.resolveAssets({ kind: 'user', userId: senderId }, ids) : []).map((a) => a.assetId),
    );
    const missing = attachments.findIndex((a) => (a.id ? !own.has(a.id) : !a.url));
    if (missing >= 0) {
      throw unprocessable(
        'conversation.attachment_invalid',
        'An attachment must be one of your uploaded files (its asset id) or carry a url.',
        [{ field: `attachments[${missing}]`, issue: 'is not one of your uploaded files, and has no url' }],
      );
    }
    // A stored asset's link is signed afresh on every read, so only its id is kept.
    return attachments.map(({ url, ...rest }) => (rest.id ? rest : { ...rest, url }));
  }

  async function participantOf(conversationId: string, userId: string) {
    const participant = await Participant.findOne({ where: { conversationId, userId } });
    if (!participant) throw noThread();
    return participant;
  }

  async function addMessage(
    transaction: Transaction,
    conversation: ConversationRow,
    senderId: string,
    input: NewMessage,
    attachments: Attachment[],
  ): Promise<MessageRow> {
    const message = await Message.create(
      { id: newId(), conversationId: conversation.id, senderId, body: input.body, attachments },
      { transaction },
    );
    await conversation.update({ lastMessageId: message.id }, { transaction });
    await Participant.update(
      { lastReadMessageId: message.id },
      { where: { conversationId: conversation.id, userId: senderId }, transaction },
    );
    const sender = await userContact(senderId);
    const others = await Participant.findAll({
      where: { conversationId: conversation.id, userId: { [Op.ne]: senderId } },
      transaction,
    });
    for (const other of others) {
      await deps.notify(transaction, {
        userId: other.userId,
        template: 'conversation.message',
        category: 'system',
        title: conversation.subject
          ? `New message: ${conversation.subject}`
          : `New message from ${sender?.email ?? 'a user'}`,
        description: input.body.length > 140 ? `${input.body.slice(0, 139)}…` : input.body,
        link: `/messages?conversationId=${conversation.id}`,
        metadata: { conversationId: conversation.id, messageId: message.id, senderId },
        channels: clampChannels(config, input.notify?.channels),
      });
    }
    return message;
  }

  async function startThread(
    transaction: Transaction,
    senderId: string,
    recipientId: string,
    subject: string | null,
    input: NewMessage,
    attachments: Attachment[],
  ) {
    const id = newId();
    const conversation = await Conversation.create(
      { id, subject, createdBy: senderId, lastMessageId: id },
      { transaction },
    );
    await Participant.bulkCreate(
      [senderId, recipientId].map((userId) => ({ conversationId: id, userId, lastReadMessageId: null })),
      { transaction },
    );
    await addMessage(transaction, conversation, senderId, input, attachments);
    return conversation;
  }

  /** MessageItems as one reader sees them (read up to `lastReadIn` of their conversation), with fresh links for stored attachments. */
  async function messageViews(
    rows: Array<MessageRow | ReadMessage>,
    readerId: string,
    lastReadIn: (conversationId: string) => string | null,
  ) {
    const assetIds = [...new Set(rows.flatMap((m) => m.attachments.flatMap((a) => (a.id ? [a.id] : []))))];
    // Rows read with their senders' addresses (ReadMessage) need no second read of them.
    const unknownSenders = rows.flatMap((m) => ('senderEmail' in m ? [] : [m.senderId]));
    const [assets, senders] = await Promise.all([
      assetIds.length ? deps.resolveAssets({ kind: 'service' }, assetIds) : [],
      deps.userContacts(unknownSenders),
    ]);
    const links = new Map(assets.map((a) => [a.assetId, a.url]));
    return rows.map((m) => {
      const lastRead = lastReadIn(m.conversationId);
      const senderName = 'senderEmail' in m ? (m.senderEmail ?? undefined) : senders.get(m.senderId)?.email;
      // An absent field is undefined, which JSON leaves out: a spread per row cost a page of threads its share.
      return {
        id: m.id,
        conversationId: m.conversationId,
        senderId: m.senderId,
        senderName: senderName || undefined,
        body: m.body,
        // An attachment whose asset was deleted since is gone.
        attachments: m.attachments.some((a) => a.id)
          ? m.attachments.flatMap((a) =>
              a.id ? (links.has(a.id) ? [{ ...a, url: links.get(a.id)! }] : []) : [a as Attachment & { url: string }],
            )
          : (m.attachments as Array<Attachment & { url: string }>),
        read: m.senderId === readerId || (lastRead !== null && m.id <= lastRead),
        createdAt: typeof m.createdAt === 'string' ? m.createdAt : m.createdAt.toISOString(),
      };
    });
  }

  /** A page of threads in a handful of statements, whatever its length. */
  async function conversationViews(rows: Array<ConversationRow & { unread?: number }>, readerId: string) {
    if (!rows.length) return [];
    const ids = rows.map((r) => r.id);
    const [others, lastMessages, mine, unread] = await Promise.all([
      Participant.findAll({ where: { conversationId: ids, userId: { [Op.ne]: readerId } } }),
      Message.findAll({ where: { id: rows.map((r) => r.lastMessageId) } }),
      Participant.findAll({ where: { conversationId: ids, userId: readerId } }),
      unreadCounts(ids, readerId),
    ]);
    const lastReadOf = new Map(mine.map((p) => [p.conversationId, p.lastReadMessageId ?? null]));
    const [contacts, lastViews] = await Promise.all([
      deps.userContacts(others.map((p) => p.userId)),
      messageViews(lastMessages, readerId, (conversationId) => lastReadOf.get(conversationId) ?? null),
    ]);
    const otherOf = new Map(others.map((p) => [p.conversationId, p]));
    const lastOf = new Map(lastMessages.map((m, i) => [m.id, { row: m, view: lastViews[i]! }]));
    return rows.map((row) => {
      const other = otherOf.get(row.id);
      const contact = other ? contacts.get(other.userId) : undefined;
      const last = lastOf.get(row.lastMessageId);
      return {
        id: row.id,
        title: row.subject ?? contact?.email ?? 'Conversation',
        ...(row.subject ? { subject: row.subject } : {}),
        ...(other ? { recipientId: other.userId } : {}),
        ...(contact ? { recipientName: contact.email } : {}),
        ...(last ? { lastMessage: last.view } : {}),
        unreadCount: unread.get(row.id) ?? 0,
        createdAt: row.createdAt.toISOString(),
        updatedAt: (last?.row.createdAt ?? row.updatedAt).toISOString(),
      };
    });
  }

  /** Messages from others after the reader's last read one, per thread. */
  async function unreadCounts(conversationIds: string[], readerId: string): Promise<Map<string, number>> {
    const rows = await sequelize.query<{ conversation_id: string; unread: string }>(
      `SELECT p.conversation_id, count(m.id) AS unread
         FROM ol.conversation_participants p
         JOIN ol.conversation_messages m ON m.conversation_id = p.conversation_id AND m.sender_id <> p.user_id AND m.id > coalesce(p.last_read_message_id, '')
        WHERE p.user_id = :readerId AND p.conversation_id IN (:conversationIds)
        GROUP BY p.conversation_id`,
      { type: QueryTypes.SELECT, replacements: { readerId, conversationIds } },
    );
    return new Map(rows.map((r) => [r.conversation_id, Number(r.unread)]));
  }

  /**
   * A page of threads as conversationViews shows them, from rows that read the other participant, the
   * last message and the unread count in the page's statement (`threadColumns`): one statement, and
   * one more only when last messages carry stored attachments (their links are signed afresh).
   */
  async function threadViews(rows: ThreadRow[], readerId: string) {
    const lastReadOf = new Map(rows.map((row) => [row.id, row.lastRead]));
    const lasts = rows.flatMap((row): ReadMessage[] =>
      row.lastId
        ? [
            {
              id: row.lastId,
              conversationId: row.id,
              senderId: row.lastSenderId,
              senderEmail: row.lastSenderEmail,
              body: row.lastBody,
              attachments: row.lastAttachments,
              createdAt: row.lastCreatedAt,
            },
          ]
        : [],
    );
    const lastViews = await messageViews(lasts, readerId, (conversationId) => lastReadOf.get(conversationId) ?? null);
    let next = 0;
    return rows.map((row) => {
      const last = row.lastId ? lastViews[next++] : undefined;
      // An absent field is undefined, which JSON leaves out (as in messageViews).
      return {
        id: row.id,
        title: row.subject ?? row.recipientEmail ?? 'Conversation',
        subject: row.subject || undefined,
        recipientId: row.recipientId || undefined,
        recipientName: row.recipientEmail || undefined,
        lastMessage: last,
        unreadCount: row.unread,
        createdAt: row.createdAt,
        updatedAt: last?.createdAt ?? row.updatedAt,
      };
    });
  }

  return {
    async create(senderId: string, input: NewMessage & { recipientId: string; subject?: string }) {
      if (input.recipientId === senderId)
        throw unprocessable('conversation.recipient_is_self', 'Start a conversation with someone else.', [
          { field: 'recipientId', issue: 'is you' },
        ]);
      if (!(await activeUser(input.recipientId))) {
        throw unprocessable('conversation.recipient_unknown', 'There is no active user with this id.', [
          { field: 'recipientId', issue: 'is not an active user' },
        ]);
      }
      const attachments = await checkAttachments(senderId, input.attachments);
      const conversation = await sequelize.transaction((transaction) =>
        startThread(transaction, senderId, input.recipientId, input.subject?.trim() || null, input, attachments),
      );
      return (await conversationViews([conversation], senderId))[0]!;
    },

    /** The caller's threads, most recently active first; `q` matches the subject or any message. */
    async list(readerId: string, page: PageRequest, q?: string) {
      const where = new Conditions();
      const reader = where.bind(readerId);
      if (q?.trim()) {
        where.add(
          '(c.subject ILIKE ? OR EXISTS (SELECT 1 FROM ol.conversation_messages m WHERE m.conversation_id = c.id AND m.body ILIKE ?))',
          containing(q),
        );
      }
      // The reader's id is bound once, as the statement's first value, for the joins and the columns.
      const { items, meta } = await keysetRows<ThreadRow>(read, page, {
        select: threadColumns(reader),
        from: threadsOf(reader),
        alias: 'c',
        where,
        key: 'c.last_message_id',
        desc: true,
      });
      return { items: await threadViews(items, readerId), meta };
    },

    async get(readerId: string, conversationId: string) {
      await participantOf(conversationId, readerId);
      return (await conversationViews([(await Conversation.findByPk(conversationId))!], readerId))[0]!;
    },

    /**
     * Polling: with a cursor, the messages after it (oldest first); with `since`, those after that
     * time; with neither, the newest `limit`. `nextCursor` is where to poll from next; reading marks
     * the returned messages read.
     */
    async messages(readerId: string, conversationId: string, page: PageRequest, since?: string) {
      // One statement: the reader's participation (none: 404) with the messages and their senders' addresses.
      const values: unknown[] = [conversationId, readerId];
      const after = [
        ...(page.cursor ? [`m.id > $${values.push(page.cursor)}`] : []),
        ...(since ? [`m.created_at > $${values.push(new Date(since))}`] : []),
      ];
      const forward = Boolean(page.cursor || since);
      const direction = forward ? 'ASC' : 'DESC';
      // The limit is written in, as keysetRows does (a bound one makes PostgreSQL plan every execution).
      const text = `SELECT p.last_read_message_id AS "lastRead",
          coalesce((SELECT json_agg(r ORDER BY r.id ${direction}) FROM (
            SELECT m.id, m.conversation_id AS "conversationId", m.sender_id AS "senderId",
                   ${accountsSql.email('m.sender_id')} AS "senderEmail", m.body, m.attachments, ${isoTime('m.created_at')} AS "createdAt"
              FROM ol.conversation_messages m WHERE m.conversation_id = p.conversation_id${after.map((c) => ` AND ${c}`).join('')}
             ORDER BY m.id ${direction} LIMIT ${page.limit + 1}) r), '[]') AS messages
        FROM ol.conversation_participants p WHERE p.conversation_id = $1 AND p.user_id = $2`;
      const [participant] = await read<{ lastRead: string | null; messages: ReadMessage[] }>(
        statementName(text),
        text,
        values,
      );
      if (!participant) throw noThread();
      const fetched = participant.messages;
      const hasMore = forward && fetched.length > page.limit;
      const rows = fetched.slice(0, page.limit);
      if (!forward) rows.reverse();
      const lastRead = participant.lastRead;
      const newest = rows[rows.length - 1]?.id;
      if (newest && (!lastRead || newest > lastRead))
        await Participant.update({ lastReadMessageId: newest }, { where: { conversationId, userId: readerId } });
      const position = newest ?? page.cursor;
      return {
        items: await messageViews(rows, readerId, () => lastRead),
        meta: { pagination: { nextCursor: position ? encodeCursor(position) : null, hasMore, limit: page.limit } },
      };
    },

    async post(senderId: string, conversationId: string, input: NewMessage) {
      await participantOf(conversationId, senderId);
      const attachments = await checkAttachments(senderId, input.attachments);
      const message = await sequelize.transaction(async (transaction) => {
        const conversation = await Conversation.findByPk(conversationId, {
          transaction,
          lock: transaction.LOCK.UPDATE,
        });
        return addMessage(transaction, conversation!, senderId, input, attachments);
      });
      return (await messageViews([message], senderId, () => message.id))[0]!;
    },

    /**
     * One thread per recipient, each with the same subject and first message, so replies stay private.
     * The recipients are user ids: groups (all candidates of a centre, ...) are CAP's to resolve.
     */
    async broadcast(
      senderId: string,
      input: NewMessage & { recipientIds?: string[]; recipientGroup?: string; subject?: string },
    ) {
      if (!(await activeUser(senderId))) {
        throw unprocessable('conversation.sender_unknown', 'The sender is not an active user.', [
          { field: 'senderId', issue: 'is not an active user' },
        ]);
      }
      const ids = [...new Set(input.recipientIds ?? [])].filter((id) => id !== senderId);
      if (!ids.length) {
        throw unprocessable(
          'conversation.recipients_required',
          'Name the recipients by user id: recipient groups are resolved by CAP (POST /v1/cap/centre/broadcast).',
          [{ field: 'recipientIds', issue: 'is required and must name someone other than you' }],
        );
      }
      const active = (await Promise.all(ids.map(async (id) => ((await activeUser(id)) ? id : null)))).filter(
        (id): id is string => id !== null,
      );
      const attachments = await checkAttachments(senderId, input.attachments);
      const threads = await sequelize.transaction(async (transaction) => {
        const created = [];
        for (const recipientId of active)
          created.push(
            await startThread(transaction, senderId, recipientId, input.subject?.trim() || null, input, attachments),
          );
        return created;
      });
      return {
        message: `Sent to ${threads.length} ${threads.length === 1 ? 'person' : 'people'}.`,
        recipientCount: threads.length,
        skippedRecipientIds: ids.filter((id) => !active.includes(id)),
        conversationIds: threads.map((t) => t.id),
      };
    },
  };
}
