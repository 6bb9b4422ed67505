import fs from 'node:fs/promises';
import path from 'node:path';
import { print, UsageError } from '../output.ts';
import { multipartBody } from '../multipart.ts';
import { ApiError, CommandFailed, expiresWithin, runCommand, type Session } from '../session.ts';
import { asProfileUser, type SignedInOptions } from './signed-in.ts';

export type FollowOptions = SignedInOptions & { interval: string; timeout?: string };

export type ListOptions = SignedInOptions & { limit: string; unread?: boolean };

export type UploadOptions = SignedInOptions & { purpose?: string; form?: boolean };

const ulid = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** What a file's name suggests it is; the server sniffs the bytes anyway. */
const guessedTypes: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
};

function limitOf(value: string): number {
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new UsageError('--limit must be a whole number from 1 to 100');
  return limit;
}

const run = (options: SignedInOptions, work: (session: Session) => Promise<void>) =>
  runCommand(Boolean(options.json), () => asProfileUser(options, work));

interface StoredAsset {
  assetId: string;
  metadata: { mimeType: string; size: number };
  url: string;
}

const describeAsset = (asset: StoredAsset) =>
  `${asset.assetId}  ${asset.metadata.mimeType}  ${asset.metadata.size} bytes\n${asset.url}`;

export function upload(file: string, options: UploadOptions) {
  return run(options, async (session) => {
    const bytes = await fs.readFile(file).catch((err: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot read ${file}: ${err.code ?? err.message}`);
    });
    const fileName = path.basename(file);
    if (options.form) {
      const fields: Record<string, string> = options.purpose ? { purpose: options.purpose } : {};
      const asset = await session.call<StoredAsset>('POST', '/v1/ol/storage/upload', () =>
        multipartBody(fileName, bytes, fields),
      );
      return print(asset, Boolean(options.json), () => describeAsset(asset));
    }
    const mimeType = guessedTypes[path.extname(fileName).toLowerCase()] ?? 'application/octet-stream';
    const issued = await session.call<{ uploadUrl: string; assetId: string }>(
      'POST',
      '/v1/ol/storage/upload-url',
      () => ({ fileName, mimeType, purpose: options.purpose }),
    );
    // The upload URL is signed: it needs no token.
    const put = await fetch(issued.uploadUrl, {
      method: 'PUT',
      body: new Uint8Array(bytes),
      headers: { 'content-type': mimeType },
    });
    if (!put.ok) {
      const error = (
        (await put.json().catch(() => undefined)) as { error?: { code: string; message: string } } | undefined
      )?.error;
      throw new ApiError(
        put.status,
        error?.code ?? `http.${put.status}`,
        error?.message ?? `the upload answered ${put.status}`,
      );
    }
    const asset = await session.call<StoredAsset>('POST', '/v1/ol/storage/confirm', () => ({
      assetId: issued.assetId,
    }));
    print(asset, Boolean(options.json), () => describeAsset(asset));
  });
}

interface Notice {
  id: string;
  title: string;
  description: string;
  category: string;
  read: boolean;
  createdAt: string;
}

export function inboxList(options: ListOptions) {
  return run(options, async (session) => {
    const query = `?limit=${limitOf(options.limit)}${options.unread ? '&status=unread' : ''}`;
    const items = await session.call<Notice[]>('GET', `/v1/ol/notifications${query}`);
    print(items, Boolean(options.json), () =>
      items.length
        ? items.map((n) => `${n.read ? ' ' : '*'} ${n.id}  ${n.createdAt}  [${n.category}] ${n.title}`).join('\n')
        : 'no notifications',
    );
  });
}

export function inboxRead(id: string, options: SignedInOptions) {
  return run(options, async (session) => {
    const item = await session.call<Notice>('PATCH', `/v1/ol/notifications/${encodeURIComponent(id)}/read`);
    print(item, Boolean(options.json), () => `read: ${item.title}`);
  });
}

export function inboxReadAll(options: SignedInOptions) {
  return run(options, async (session) => {
    const result = await session.call<{ updated: number }>('POST', '/v1/ol/notifications/mark-all-read');
    print(result, Boolean(options.json), () => `${result.updated} marked read`);
  });
}

interface Message {
  id: string;
  senderId: string;
  senderName?: string;
  body: string;
  createdAt: string;
}

interface Thread {
  id: string;
  title: string;
  unreadCount: number;
  updatedAt: string;
  lastMessage?: Message;
}

const line = (m: Message) => `${m.createdAt}  ${m.senderName ?? m.senderId}: ${m.body}`;

export function chatThreads(options: ListOptions) {
  return run(options, async (session) => {
    const threads = await session.call<Thread[]>('GET', `/v1/ol/conversations?limit=${limitOf(options.limit)}`);
    print(threads, Boolean(options.json), () =>
      threads.length
        ? threads
            .map(
              (c) =>
                `${c.id}  ${c.unreadCount ? `(${c.unreadCount} new) ` : ''}${c.title}  ${c.lastMessage ? `- ${c.lastMessage.body}` : ''}`,
            )
            .join('\n')
        : 'no conversations',
    );
  });
}

export function chatSend(to: string, body: string, options: SignedInOptions & { subject?: string }) {
  return run(options, async (session) => {
    if (!ulid.test(to)) throw new UsageError('<to> must be a thread id or a user id (26-character ULID)');
    // A thread the user takes part in, or else a user to start one with.
    const thread = await session.call<Thread>('GET', `/v1/ol/conversations/${to}`).catch((err) => {
      if (err instanceof ApiError && err.status === 404) return undefined;
      throw err;
    });
    if (thread) {
      const message = await session.call<Message>('POST', `/v1/ol/conversations/${to}/messages`, () => ({ body }));
      print(message, Boolean(options.json), () => `sent to ${thread.title} (${thread.id})`);
      return;
    }
    const created = await session.call<Thread>('POST', '/v1/ol/conversations', () => ({
      recipientId: to,
      message: body,
      ...(options.subject ? { subject: options.subject } : {}),
    }));
    print(created, Boolean(options.json), () => `started thread ${created.id} with ${created.title}`);
  });
}

export function chatFollow(threadId: string, options: FollowOptions) {
  return run(options, async (session) => {
    const interval = Number(options.interval) * 1000;
    const timeout = options.timeout === undefined ? Infinity : Number(options.timeout) * 1000;
    if (!(interval > 0) || !(timeout > 0))
      throw new UsageError('--interval and --timeout must be positive numbers of seconds');
    const deadline = Date.now() + timeout;
    let cursor: string | null = null;
    for (;;) {
      if (expiresWithin(session.profile.accessToken, 30)) await session.refresh();
      const query: string = cursor ? `?cursor=${encodeURIComponent(cursor)}&limit=100` : '?limit=100';
      const res = await session.api.send('GET', `/v1/ol/conversations/${threadId}/messages${query}`, {
        token: session.profile.accessToken,
      });
      const { data, meta } = res.body as {
        data: Message[];
        meta: { pagination: { nextCursor: string | null; hasMore: boolean } };
      };
      // One line per message, also as JSON (NDJSON), so a pipe can read them as they come.
      for (const message of data) process.stdout.write(`${options.json ? JSON.stringify(message) : line(message)}\n`);
      cursor = meta.pagination.nextCursor ?? cursor;
      if (meta.pagination.hasMore) continue;
      if (Date.now() + interval > deadline) return;
      await new Promise((resolve) => setTimeout(resolve, interval));
      if (!cursor) throw new CommandFailed('the thread answered no position to poll from');
    }
  });
}
