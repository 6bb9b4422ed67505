import test from 'ava';
import { call, eventually, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { pngBytes } from '../helpers/files.ts';
import { inboxOf } from '../helpers/notifications.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

let platform: TestPlatform;
let ada: SignedUpUser;
let ben: SignedUpUser;
let cy: SignedUpUser;
test.before(async () => {
  platform = await startTestPlatform({ conversationEmail: true });
  [ada, ben, cy] = await Promise.all([signUp(platform), signUp(platform), signUp(platform)]);
});
test.after.always(() => platform?.stop());

const ol = (path: string) => platform.url(`/v1/ol${path}`);
const start = (from: SignedUpUser, to: SignedUpUser, json: Record<string, unknown> = {}) =>
  call('POST', ol('/conversations'), {
    token: from.accessToken,
    json: { recipientId: to.userId, message: 'Hello there', ...json },
  });
const mails = async (to: string) =>
  (await call('GET', ol(`/dev/mailbox?to=${encodeURIComponent(to)}`))).body.data as any[];

test('two users exchange messages in a thread; a third cannot read it or post to it', async (t) => {
  const created = await start(ada, ben, { subject: 'Interview slot' });
  t.is(created.status, 201, created.text);
  const thread = created.body.data;
  t.like(thread, {
    title: 'Interview slot',
    subject: 'Interview slot',
    recipientId: ben.userId,
    recipientName: ben.email,
    unreadCount: 0,
  });
  t.like(thread.lastMessage, { senderId: ada.userId, body: 'Hello there', read: true });

  const seenByBen = await call('GET', ol(`/conversations/${thread.id}`), { token: ben.accessToken });
  t.like(seenByBen.body.data, { recipientId: ada.userId, unreadCount: 1 });
  const reply = await call('POST', ol(`/conversations/${thread.id}/messages`), {
    token: ben.accessToken,
    json: { body: 'Monday works' },
  });
  t.is(reply.status, 201);
  t.like(reply.body.data, { conversationId: thread.id, senderId: ben.userId, body: 'Monday works', read: true });

  const messages = await call('GET', ol(`/conversations/${thread.id}/messages`), { token: ada.accessToken });
  t.deepEqual(
    messages.body.data.map((m: any) => m.body),
    ['Hello there', 'Monday works'],
  );
  t.deepEqual(
    messages.body.data.map((m: any) => m.read),
    [true, false],
  );

  for (const res of [
    await call('GET', ol(`/conversations/${thread.id}`), { token: cy.accessToken }),
    await call('GET', ol(`/conversations/${thread.id}/messages`), { token: cy.accessToken }),
    await call('POST', ol(`/conversations/${thread.id}/messages`), {
      token: cy.accessToken,
      json: { body: 'let me in' },
    }),
  ]) {
    t.is(res.status, 404);
    t.is(res.body.error.code, 'http.not_found');
  }
  t.false(
    (await call('GET', ol('/conversations'), { token: cy.accessToken })).body.data.some((c: any) => c.id === thread.id),
  );
});

test('polling with the cursor returns only the messages posted since', async (t) => {
  const { body } = await start(ada, ben);
  const id = body.data.id;
  const first = await call('GET', ol(`/conversations/${id}/messages`), { token: ben.accessToken });
  t.is(first.body.data.length, 1);
  let cursor = first.body.meta.pagination.nextCursor;
  const empty = await call('GET', ol(`/conversations/${id}/messages?cursor=${cursor}`), { token: ben.accessToken });
  t.deepEqual(empty.body.data, []);
  t.is(empty.body.meta.pagination.nextCursor, cursor);

  for (const text of ['one', 'two', 'three'])
    await call('POST', ol(`/conversations/${id}/messages`), { token: ada.accessToken, json: { body: text } });
  const page = await call('GET', ol(`/conversations/${id}/messages?cursor=${cursor}&limit=2`), {
    token: ben.accessToken,
  });
  t.deepEqual(
    page.body.data.map((m: any) => m.body),
    ['one', 'two'],
  );
  t.true(page.body.meta.pagination.hasMore);
  cursor = page.body.meta.pagination.nextCursor;
  const rest = await call('GET', ol(`/conversations/${id}/messages?cursor=${cursor}`), { token: ben.accessToken });
  t.deepEqual(
    rest.body.data.map((m: any) => m.body),
    ['three'],
  );
  t.false(rest.body.meta.pagination.hasMore);
  const since = await call(
    'GET',
    ol(`/conversations/${id}/messages?since=${encodeURIComponent(page.body.data[1].createdAt)}`),
    { token: ben.accessToken },
  );
  t.deepEqual(
    since.body.data.map((m: any) => m.body),
    ['three'],
  );
});

test('unread counts per thread follow what each participant has read', async (t) => {
  const { body } = await start(ada, cy, { subject: 'Counting' });
  const id = body.data.id;
  await call('POST', ol(`/conversations/${id}/messages`), { token: ada.accessToken, json: { body: 'second' } });
  const listed = await call('GET', ol('/conversations?q=counting'), { token: cy.accessToken });
  t.is(listed.body.data.length, 1);
  t.like(listed.body.data[0], { id, unreadCount: 2, lastMessage: { body: 'second', read: false } });
  await call('GET', ol(`/conversations/${id}/messages`), { token: cy.accessToken });
  t.is((await call('GET', ol(`/conversations/${id}`), { token: cy.accessToken })).body.data.unreadCount, 0);
  t.is((await call('GET', ol(`/conversations/${id}`), { token: ada.accessToken })).body.data.unreadCount, 0);
});

test('a thread in the list reads as it does alone, its last message naming its sender whoever sent it', async (t) => {
  const { body } = await start(ada, ben, { subject: 'Named senders' });
  const id = body.data.id;
  for (const [sender, text] of [
    [ada, 'from the reader'],
    [ben, 'from the other one'],
  ] as const) {
    await call('POST', ol(`/conversations/${id}/messages`), { token: sender.accessToken, json: { body: text } });
    for (const reader of [ada, ben]) {
      const listed = await call('GET', ol('/conversations?q=named%20senders'), { token: reader.accessToken });
      const alone = await call('GET', ol(`/conversations/${id}`), { token: reader.accessToken });
      t.deepEqual(listed.body.data, [alone.body.data]);
      t.like(alone.body.data.lastMessage, { body: text, senderId: sender.userId, senderName: sender.email });
    }
  }
});

test('threads list most recently active first, search by q, and page with a cursor', async (t) => {
  const dee = await signUp(platform);
  const a = (await start(dee, ada, { subject: 'Alpha' })).body.data.id;
  const b = (await start(dee, ben, { subject: 'Beta' })).body.data.id;
  await call('POST', ol(`/conversations/${a}/messages`), {
    token: dee.accessToken,
    json: { body: 'bump with needle' },
  });
  const list = await call('GET', ol('/conversations?limit=1'), { token: dee.accessToken });
  t.deepEqual(
    list.body.data.map((c: any) => c.id),
    [a],
  );
  const next = await call('GET', ol(`/conversations?limit=1&cursor=${list.body.meta.pagination.nextCursor}`), {
    token: dee.accessToken,
  });
  t.deepEqual(
    next.body.data.map((c: any) => c.id),
    [b],
  );
  t.deepEqual(
    (await call('GET', ol('/conversations?q=NEEDLE'), { token: dee.accessToken })).body.data.map((c: any) => c.id),
    [a],
  );
  t.deepEqual((await call('GET', ol('/conversations?q=50%25_'), { token: dee.accessToken })).body.data, []);
});

test('a message notifies the recipient in the inbox; email only when asked and enabled; replies are not mailed by default', async (t) => {
  const eve = await signUp(platform);
  const { body } = await start(ada, eve, { subject: 'Mail me', notify: { channels: ['email', 'sms'] } });
  const inbox = await inboxOf(platform, eve.accessToken, 1);
  t.like(inbox[0], {
    type: 'conversation.message',
    category: 'system',
    title: 'New message: Mail me',
    metadata: { conversationId: body.data.id },
  });
  await eventually('the message mail arrives', async () =>
    (await mails(eve.email)).some((m) => m.template === 'conversation.message'),
  );
  const sms = await sql(platform, `SELECT status FROM ol.notifications WHERE channel = 'sms' AND user_id = $1`, [
    eve.userId,
  ]);
  t.deepEqual(sms, []);

  await call('POST', ol(`/conversations/${body.data.id}/messages`), {
    token: ada.accessToken,
    json: { body: 'a reply' },
  });
  await inboxOf(platform, eve.accessToken, 2);
  t.is((await mails(eve.email)).filter((m) => m.template === 'conversation.message').length, 1);
});

test("attachments are the sender's own uploads, linked afresh for every participant", async (t) => {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(pngBytes(2))]), 'photo.png');
  form.append('purpose', 'attachment');
  const uploaded = (await (
    await fetch(ol('/storage/upload'), {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${ada.accessToken}` },
    })
  ).json()) as any;
  const assetId = uploaded.data.assetId;
  const created = await start(ada, ben, { attachments: [{ id: assetId, name: 'photo.png', type: 'image/png' }] });
  t.is(created.status, 201, created.text);
  const seen = await call('GET', ol(`/conversations/${created.body.data.id}/messages`), { token: ben.accessToken });
  const [attachment] = seen.body.data[0].attachments;
  t.like(attachment, { id: assetId, name: 'photo.png' });
  t.is((await fetch(attachment.url)).status, 200);

  const stolen = await start(ben, cy, { attachments: [{ id: assetId, name: 'not mine.png' }] });
  t.is(stolen.status, 422);
  t.is(stolen.body.error.code, 'conversation.attachment_invalid');
});

test('broadcast opens one private thread per recipient; groups without ids are refused clearly', async (t) => {
  const res = await call('POST', ol('/conversations/broadcast'), {
    token: ada.accessToken,
    json: {
      recipientIds: [ben.userId, cy.userId, ada.userId, '01ARZ3NDEKTSV4RRFFQ69G5FAV'],
      subject: 'Broadcast to all candidates',
      message: 'Centre closed Friday',
    },
  });
  t.is(res.status, 200, res.text);
  t.like(res.body.data, {
    message: 'Sent to 2 people.',
    recipientCount: 2,
    skippedRecipientIds: ['01ARZ3NDEKTSV4RRFFQ69G5FAV'],
  });
  const [toBen, toCy] = res.body.data.conversationIds;
  t.is((await call('GET', ol(`/conversations/${toBen}`), { token: ben.accessToken })).status, 200);
  t.is((await call('GET', ol(`/conversations/${toBen}`), { token: cy.accessToken })).status, 404);
  t.is(
    (await call('GET', ol(`/conversations/${toCy}`), { token: cy.accessToken })).body.data.lastMessage.body,
    'Centre closed Friday',
  );

  const group = await call('POST', ol('/conversations/broadcast'), {
    token: ada.accessToken,
    json: { recipientGroup: 'all_candidates', message: 'hi' },
  });
  t.is(group.status, 422);
  t.is(group.body.error.code, 'conversation.recipients_required');
});

test('bad conversation input gets a clear 4xx', async (t) => {
  const self = await start(ada, ada);
  t.is(self.status, 422);
  t.is(self.body.error.code, 'conversation.recipient_is_self');
  const unknown = await call('POST', ol('/conversations'), {
    token: ada.accessToken,
    json: { recipientId: '01ARZ3NDEKTSV4RRFFQ69G5FAV', message: 'x' },
  });
  t.is(unknown.body.error.code, 'conversation.recipient_unknown');
  const blank = await start(ada, ben, { message: '   ' });
  t.is(blank.status, 422);
  t.is(blank.body.error.code, 'validation.failed');
  t.is((await call('GET', ol('/conversations/not-an-id'), { token: ada.accessToken })).status, 422);
  t.is((await call('GET', ol('/conversations'))).status, 401);
});
