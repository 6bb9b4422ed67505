/**
 * capctl -> Orchestrator, storage, inbox and conversations: the calls `capctl upload`, `capctl inbox`
 * and `capctl chat` make. Registered into capctl-ol.consumer.test.ts, which writes pacts/capctl-ol.json.
 */
import type { TestFn } from 'ava';
import fs from 'node:fs';
import { MatchersV3, PactV4 } from '@pact-foundation/pact';
import { multipartBody } from '../../cli/multipart.ts';
import { bearer, capctl, configDir, email, isoDateTime, textBody, ulid } from './support.ts';

const { boolean, eachLike, fromProviderState, integer, like, regex, string } = MatchersV3;

const exampleThread = '01J9Z8X7W6V5T4S3R2Q1P0CV01';
const exampleNotice = '01J9Z8X7W6V5T4S3R2Q1P0NT01';
const exampleAsset = '01J9Z8X7W6V5T4S3R2Q1P0AS01';
const thread = (suffix = '') =>
  fromProviderState(
    `/v1/ol/conversations/\${conversationId}${suffix}`,
    `/v1/ol/conversations/${exampleThread}${suffix}`,
  );
const auth = { authorization: bearer() };

const message = (body: string) => ({
  id: ulid(),
  conversationId: ulid(exampleThread),
  senderId: ulid(),
  senderName: email(),
  body: string(body),
  attachments: [],
  read: boolean(false),
  createdAt: isoDateTime(),
});
const conversation = {
  id: ulid(exampleThread),
  title: string('Interview slot'),
  subject: string('Interview slot'),
  recipientId: ulid(),
  recipientName: email(),
  lastMessage: message('Does Monday suit you?'),
  unreadCount: integer(1),
  createdAt: isoDateTime(),
  updatedAt: isoDateTime(),
};
// In a list, whose items may be any the caller holds, only what every item has: a thread may have no
// subject and no other party; a message's sender may have no name.
const conversationItem = {
  id: conversation.id,
  title: conversation.title,
  unreadCount: conversation.unreadCount,
  createdAt: conversation.createdAt,
  updatedAt: conversation.updatedAt,
};
const messageItem = (body: string) => {
  const { senderName: _senderName, ...always } = message(body);
  return always;
};
const notice = (read: boolean) => ({
  id: ulid(exampleNotice),
  title: string('New message: Interview slot'),
  description: string('Does Monday suit you?'),
  category: regex('^(application|assessment|system|security)$', 'system'),
  type: string('conversation.message'),
  read,
  isUnread: !read,
  time: isoDateTime(),
  timestamp: isoDateTime(),
  createdAt: isoDateTime(),
  metadata: like({}),
});
// One page holds everything the states make: no next page.
const page = { pagination: { nextCursor: null, hasMore: false, limit: 20 } };
// A poll always answers where to poll from next.
const pollPage = {
  pagination: {
    nextCursor: like('eyJhZnRlciI6IjAxSjlaOFg3VzZWNVQ0UzNSMlExUDBDVjAxIn0'),
    hasMore: boolean(false),
    limit: 100,
  },
};

/**
 * The upload URL the mock answers must point back at the mock itself, so that mock listens on a fixed
 * port: the pact then holds the same example URL on every run (a re-run writes the same bytes).
 */
const uploadMockPort = 47391;

export function capctlMessagingPacts(test: TestFn, olPact: (options?: { port?: number }) => PactV4): void {
  test.serial('capctl inbox lists unread notifications, marks one read and all read', async (t) => {
    const cli = configDir(t);
    const ol = olPact();
    ol.addInteraction()
      .given('a user with a conversation and a notification')
      .uponReceiving('a list of unread notifications')
      .withRequest('GET', '/v1/ol/notifications', (b) => b.query({ limit: '20', status: 'unread' }).headers(auth))
      .willRespondWith(200, (b) => b.jsonBody({ success: true, data: eachLike(notice(false)), meta: page }));
    ol.addInteraction()
      .given('a user with a conversation and a notification')
      .uponReceiving('a notification marked read')
      .withRequest(
        'PATCH',
        fromProviderState('/v1/ol/notifications/${notificationId}/read', `/v1/ol/notifications/${exampleNotice}/read`),
        (b) => b.headers(auth),
      )
      .willRespondWith(200, (b) => b.jsonBody({ success: true, data: notice(true) }));
    await ol
      .addInteraction()
      .given('a user with a conversation and a notification')
      .uponReceiving('every notification marked read')
      .withRequest('POST', '/v1/ol/notifications/mark-all-read', (b) => b.headers(auth))
      .willRespondWith(200, (b) => b.jsonBody({ success: true, data: { updated: integer(1) } }))
      .executeTest(async (mock) => {
        cli.signedIn(mock.url);
        const listed = await capctl(t, cli.dir, 'inbox', 'list', '--unread', '--json');
        t.is(listed.code, 0, listed.stderr);
        t.is(JSON.parse(listed.stdout)[0].id, exampleNotice);
        t.is((await capctl(t, cli.dir, 'inbox', 'read', exampleNotice, '--json')).code, 0);
        t.is((await capctl(t, cli.dir, 'inbox', 'read-all', '--json')).code, 0);
      });
  });

  test.serial('capctl chat lists threads, replies in one and follows it', async (t) => {
    const cli = configDir(t);
    const ol = olPact();
    ol.addInteraction()
      .given('a user with a conversation and a notification')
      .uponReceiving('a list of conversations')
      .withRequest('GET', '/v1/ol/conversations', (b) => b.query({ limit: '20' }).headers(auth))
      .willRespondWith(200, (b) => b.jsonBody({ success: true, data: eachLike(conversationItem), meta: page }));
    ol.addInteraction()
      .given('a user with a conversation and a notification')
      .uponReceiving('a read of a conversation')
      .withRequest('GET', thread(), (b) => b.headers(auth))
      .willRespondWith(200, (b) => b.jsonBody({ success: true, data: conversation }));
    ol.addInteraction()
      .given('a user with a conversation and a notification')
      .uponReceiving('a reply in a conversation')
      .withRequest('POST', thread('/messages'), (b) => b.headers(auth).jsonBody({ body: 'Monday works' }))
      .willRespondWith(201, (b) =>
        b.jsonBody({ success: true, data: { ...message('Monday works'), read: boolean(true) } }),
      );
    await ol
      .addInteraction()
      .given('a user with a conversation and a notification')
      .uponReceiving('a poll of a conversation')
      .withRequest('GET', thread('/messages'), (b) => b.query({ limit: '100' }).headers(auth))
      .willRespondWith(200, (b) =>
        b.jsonBody({ success: true, data: eachLike(messageItem('Does Monday suit you?')), meta: pollPage }),
      )
      .executeTest(async (mock) => {
        cli.signedIn(mock.url);
        const threads = await capctl(t, cli.dir, 'chat', 'threads', '--json');
        t.is(threads.code, 0, threads.stderr);
        t.is(JSON.parse(threads.stdout)[0].id, exampleThread);
        const sent = await capctl(t, cli.dir, 'chat', 'send', exampleThread, 'Monday', 'works', '--json');
        t.is(sent.code, 0, sent.stderr);
        const followed = await capctl(t, cli.dir, 'chat', 'follow', exampleThread, '--timeout', '0.01', '--json');
        t.is(followed.code, 0, followed.stderr);
        t.is(JSON.parse(followed.stdout.trim().split('\n')[0]!).body, 'Does Monday suit you?');
      });
  });

  test.serial(
    'capctl upload --form sends the file and its purpose as one multipart request, as the web client does',
    async (t) => {
      const cli = configDir(t);
      const ol = olPact();
      // A PDF written in plain ASCII: Pact keeps a multipart body as text. capctl draws the boundary from
      // the content, so this is the very body it sends.
      const pdf = fs.readFileSync('fixtures/files/certificate.pdf');
      const form = multipartBody('certificate.pdf', pdf, { purpose: 'certificate' });
      await ol
        .addInteraction()
        .given('a verified user')
        .uponReceiving('a multipart upload of a certificate')
        .withRequest('POST', '/v1/ol/storage/upload', (b) =>
          textBody(b.headers(auth), form.contentType, form.bytes.toString('ascii')),
        )
        .willRespondWith(201, (b) =>
          b.jsonBody({
            success: true,
            data: {
              assetId: ulid(exampleAsset),
              url: regex(
                '^https?://\\S+$',
                `http://127.0.0.1:4000/v1/ol/storage/files/${exampleAsset}?expires=4102444800&signature=example`,
              ),
              provider: regex('^(filesystem|s3)$', 'filesystem'),
              type: 'certificate',
              purpose: 'certificate',
              fileName: 'certificate.pdf',
              status: 'ready',
              metadata: { size: integer(pdf.length), mimeType: 'application/pdf' },
            },
          }),
        )
        .executeTest(async (mock) => {
          cli.signedIn(mock.url);
          const run = await capctl(
            t,
            cli.dir,
            'upload',
            'fixtures/files/certificate.pdf',
            '--purpose',
            'certificate',
            '--form',
            '--json',
          );
          t.is(run.code, 0, run.stderr);
          t.like(JSON.parse(run.stdout), {
            assetId: exampleAsset,
            purpose: 'certificate',
            metadata: { mimeType: 'application/pdf' },
          });
        });
    },
  );

  test.serial('capctl upload asks for an upload URL, PUTs the bytes there and confirms the asset', async (t) => {
    const cli = configDir(t);
    const port = uploadMockPort;
    const ol = olPact({ port });
    const uploadPath = `/v1/ol/storage/uploads/${exampleAsset}`;
    const png = fs.readFileSync('fixtures/files/passport.png');
    ol.addInteraction()
      .given('a verified user')
      .uponReceiving('a request for an upload URL')
      .withRequest('POST', '/v1/ol/storage/upload-url', (b) =>
        b.headers(auth).jsonBody({ fileName: 'passport.png', mimeType: 'image/png', purpose: 'passport' }),
      )
      .willRespondWith(201, (b) =>
        b.jsonBody({
          success: true,
          data: {
            uploadUrl: regex(
              '^https?://[^/]+/v1/ol/storage/uploads/[0-9A-HJKMNP-TV-Z]{26}\\?expires=[0-9]+&signature=[A-Za-z0-9_-]+$',
              `http://127.0.0.1:${port}${uploadPath}?expires=4102444800&signature=example-signature`,
            ),
            assetId: ulid(exampleAsset),
            expiresAt: isoDateTime(),
            method: 'PUT',
          },
        }),
      );
    ol.addInteraction()
      .given('an asset waiting for its bytes')
      .uponReceiving("a file's bytes PUT to its upload URL")
      .withRequest('PUT', fromProviderState('/v1/ol/storage/uploads/${assetId}', uploadPath), (b) =>
        b
          .query({
            expires: fromProviderState('${expires}', '4102444800'),
            signature: fromProviderState('${signature}', 'example-signature'),
          })
          .body('image/png', png),
      )
      .willRespondWith(200, (b) =>
        b.jsonBody({
          success: true,
          data: { assetId: ulid(exampleAsset), status: 'uploaded', size: integer(png.length), mimeType: 'image/png' },
        }),
      );
    await ol
      .addInteraction()
      .given('an uploaded asset waiting for confirmation')
      .uponReceiving('the confirmation of an uploaded asset')
      .withRequest('POST', '/v1/ol/storage/confirm', (b) =>
        b.headers(auth).jsonBody({ assetId: fromProviderState('${assetId}', exampleAsset) }),
      )
      .willRespondWith(200, (b) =>
        b.jsonBody({
          success: true,
          data: {
            assetId: ulid(exampleAsset),
            url: regex(
              '^https?://\\S+$',
              `http://127.0.0.1:${port}/v1/ol/storage/files/${exampleAsset}?expires=4102444800&signature=example`,
            ),
            expiresAt: isoDateTime(),
            provider: regex('^(filesystem|s3)$', 'filesystem'),
            type: 'passport',
            purpose: 'passport',
            fileName: 'passport.png',
            status: 'ready',
            metadata: { size: integer(png.length), mimeType: 'image/png' },
            createdAt: isoDateTime(),
          },
        }),
      )
      .executeTest(async (mock) => {
        cli.signedIn(mock.url);
        const run = await capctl(
          t,
          cli.dir,
          'upload',
          'fixtures/files/passport.png',
          '--purpose',
          'passport',
          '--json',
        );
        t.is(run.code, 0, run.stderr);
        t.like(JSON.parse(run.stdout), { assetId: exampleAsset, metadata: { mimeType: 'image/png' } });
      });
  });
}
