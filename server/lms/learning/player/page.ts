import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';

// The LMS-hosted SCORM 1.2 player page: scorm-again's SCORM 1.2 API (window.API) in this page, the
// SCO in a frame below it loaded from the package's content URL, and every LMSCommit / LMSFinish sent
// to the session's CMI commit operation with the session's content token.

export interface CmiSnapshot {
  lessonStatus: 'incomplete' | 'completed' | 'passed' | 'failed';
  scoreRaw?: number | null;
  scoreMax?: number | null;
  sessionTime?: string;
  suspendData?: string;
  location?: string;
}

export interface PlayerPageInput {
  title: string;
  /** The SCO's URL relative to the player page (`content/index.html`). */
  scoUrl: string;
  /** The CMI commit URL relative to the player page (`cmi`). */
  commitUrl: string;
  contentToken: string;
  learner: { id: string; name: string };
  /** The last committed CMI, to resume from; absent on a first launch. */
  cmi?: CmiSnapshot;
}

let runtime: string | undefined;
/** scorm-again's browser build of the SCORM 1.2 API, read once. */
const scormAgain = () =>
  (runtime ??= fs.readFileSync(createRequire(import.meta.url).resolve('scorm-again/scorm12/min'), 'utf8'));

/** JSON that can sit inside a <script> element: no `</script>` or `<!--` can be formed. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// Runs in the browser. Seeds the API from the last commit (resume), then turns each commit of the
// SCO into the LMS's CMI snapshot. A commit during LMSFinish may happen as the page goes away, so it
// is a keepalive fetch; every other commit is a synchronous request, as SCORM 1.2 expects.
const bootstrap = `(function () {
  var session = JSON.parse(document.getElementById('lms-session').textContent);
  var statuses = { passed: 'passed', failed: 'failed', completed: 'completed' };
  function number(value) { return value === '' || value === undefined || value === null || isNaN(Number(value)) ? null : Number(value); }
  function snapshot(commit) {
    var cmi = (commit && commit.cmi) || {}, core = cmi.core || {}, score = core.score || {};
    return {
      lessonStatus: statuses[core.lesson_status] || 'incomplete',
      scoreRaw: number(score.raw),
      scoreMax: number(score.max),
      sessionTime: core.session_time || '',
      suspendData: cmi.suspend_data || '',
      location: core.lesson_location || ''
    };
  }
  var headers = { 'Content-Type': 'application/json', 'X-Elimi-Scorm-Token': session.contentToken };
  var httpService = {
    processHttpRequest: function (url, commit, immediate) {
      var body = JSON.stringify(snapshot(commit));
      if (immediate) {
        fetch(url, { method: 'POST', headers: headers, body: body, keepalive: true, credentials: 'same-origin' });
        return { result: 'true', errorCode: 0 };
      }
      var xhr = new XMLHttpRequest();
      xhr.open('POST', url, false);
      for (var name in headers) xhr.setRequestHeader(name, headers[name]);
      try { xhr.send(body); } catch (e) { return { result: 'false', errorCode: 101 }; }
      return xhr.status === 200 ? { result: 'true', errorCode: 0 } : { result: 'false', errorCode: 101 };
    },
    updateSettings: function () {}
  };
  var api = new window.Scorm12API({ lmsCommitUrl: session.commitUrl, autocommit: false, logLevel: 4, httpService: httpService });
  var last = session.cmi;
  api.loadFromJSON({
    core: {
      student_id: session.learner.id,
      student_name: session.learner.name,
      credit: 'credit',
      entry: last && last.suspendData ? 'resume' : 'ab-initio',
      lesson_status: last ? last.lessonStatus : 'not attempted',
      lesson_location: last && last.location ? last.location : ''
    },
    suspend_data: last && last.suspendData ? last.suspendData : ''
  });
  window.API = api;
  document.getElementById('sco').src = session.scoUrl;
})();`;

/** The player page and the Content-Security-Policy nonce its scripts carry. */
export function playerPage(input: PlayerPageInput): { html: string; nonce: string } {
  const nonce = randomBytes(16).toString('base64');
  const session = {
    scoUrl: input.scoUrl,
    commitUrl: input.commitUrl,
    contentToken: input.contentToken,
    learner: input.learner,
    cmi: input.cmi ?? null,
  };
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.title)}</title>
<style nonce="${nonce}">html, body { margin: 0; height: 100%; } iframe { border: 0; width: 100%; height: 100%; display: block; }</style>
<script nonce="${nonce}">${scormAgain()}</script>
<script type="application/json" id="lms-session">${scriptJson(session)}</script>
</head>
<body>
<iframe id="sco" title="${escapeHtml(input.title)}"></iframe>
<script nonce="${nonce}">${bootstrap}</script>
</body>
</html>
`;
  return { html, nonce };
}
