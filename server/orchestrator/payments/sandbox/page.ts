/**
 * The sandbox's hosted checkout page: plain HTML rendered on the server, with a small script and a
 * style sheet served beside it (no inline script, so a strict Content-Security-Policy holds). The
 * buttons call the sandbox's own JSON API (`../transactions/{reference}/pay|decline|cancel`), the same
 * calls `capctl pay` makes; relative URLs keep the page working under any prefix (`/v1/ol`, `/v1`).
 */
import { formatMoney } from '../../../platform/money.ts';
import { groupCardNumber, testCards } from './cards.ts';
import type { SandboxTransactionView } from './service.ts';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** What the payer reads once a transaction is closed. */
export function outcomeText(tx: Pick<SandboxTransactionView, 'status' | 'gatewayResponse'>): {
  title: string;
  detail: string;
} {
  switch (tx.status) {
    case 'success':
      return { title: 'Payment successful', detail: 'Your payment was approved. The merchant has been notified.' };
    case 'failed':
      return { title: 'Payment declined', detail: tx.gatewayResponse ?? 'The card was declined.' };
    case 'abandoned':
      return { title: 'Payment cancelled', detail: 'You cancelled this payment. Nothing was charged.' };
    default:
      return { title: '', detail: '' };
  }
}

const outcomeLabel: Record<string, string> = { success: 'Approved', failed: 'Declined' };

function testCardRows(): string {
  return testCards
    .map(
      (card) =>
        `<tr><td><code>${groupCardNumber(card.number)}</code></td><td>${card.brand}</td><td>${outcomeLabel[card.outcome]}${card.outcome === 'failed' ? `: ${escape(card.message)}` : ''}</td></tr>`,
    )
    .join('\n');
}

function resultSection(tx: SandboxTransactionView): string {
  const closed = tx.status !== 'pending';
  const text = outcomeText(tx);
  return `<section id="result" class="result ${closed ? `result-${tx.status}` : ''}" role="status" aria-live="polite"${closed ? '' : ' hidden'}>
  <h2 id="result-title">${escape(text.title)}</h2>
  <p id="result-detail">${escape(text.detail)}</p>
  <p id="result-return"${tx.redirectUrl ? '' : ' hidden'}>Returning you to the merchant&hellip; <a id="return-link" href="${escape(tx.redirectUrl ?? '#')}">Continue</a></p>
  <p id="result-stay"${closed && !tx.redirectUrl ? '' : ' hidden'}>You can close this window.</p>
</section>`;
}

/** The checkout page of one transaction, pending (the card form) or closed (its outcome). */
export function checkoutPage(tx: SandboxTransactionView): string {
  const amount = formatMoney(tx.amount);
  const pending = tx.status === 'pending';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Pay ${escape(amount)} to ${escape(tx.merchantName)} - Sandbox checkout</title>
<link rel="stylesheet" href="../assets/checkout.css">
<script src="../assets/checkout.js" defer></script>
</head>
<body>
<main id="checkout" class="checkout" data-reference="${escape(tx.reference)}" data-status="${escape(tx.status)}" data-redirect-url="${escape(tx.redirectUrl ?? '')}">
  <p class="badge">Sandbox &middot; test mode: no real money moves</p>
  <header>
    <p class="merchant">${escape(tx.merchantName)}</p>
    <h1 id="amount">${escape(amount)}</h1>
    <p id="description" class="description">${escape(tx.description)}</p>
    <dl class="facts">
      <dt>Reference</dt><dd id="reference"><code>${escape(tx.reference)}</code></dd>
      ${tx.customerEmail ? `<dt>Paying as</dt><dd>${escape(tx.customerEmail)}</dd>` : ''}
    </dl>
  </header>
${resultSection(tx)}
  <form id="card-form" class="card-form" autocomplete="off" novalidate${pending ? '' : ' hidden'}>
    <label>Card number <input id="card-number" name="cardNumber" inputmode="numeric" value="${groupCardNumber(testCards[0]!.number)}" required></label>
    <div class="row">
      <label>Expiry (MM/YY) <input id="card-expiry" name="expiry" value="12/30" required></label>
      <label>CVV <input id="card-cvv" name="cvv" inputmode="numeric" value="408" maxlength="4" required></label>
    </div>
    <p id="form-error" class="error" role="alert" hidden></p>
    <button id="pay" type="submit" class="pay">Pay ${escape(amount)}</button>
    <div class="row actions">
      <button id="decline" type="button" class="decline">Decline</button>
      <button id="cancel" type="button" class="cancel">Cancel payment</button>
    </div>
  </form>
  <noscript><p class="error">This checkout needs JavaScript to submit a payment.</p></noscript>
  <section class="test-cards">
    <h2>Test cards</h2>
    <p>Any future expiry and any 3-digit CVV. The card number decides the result; <strong>Decline</strong> is a decline by the payer's bank, <strong>Cancel payment</strong> abandons the payment.</p>
    <table>
      <thead><tr><th>Card number</th><th>Brand</th><th>Result</th></tr></thead>
      <tbody>
${testCardRows()}
      </tbody>
    </table>
  </section>
</main>
</body>
</html>
`;
}

/** The page for a reference the sandbox does not know. */
export function notFoundPage(): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Checkout not found - Sandbox checkout</title><link rel="stylesheet" href="../assets/checkout.css"></head>
<body><main class="checkout"><p class="badge">Sandbox</p><h1>Checkout not found</h1><p>No payment has this reference. Check the link you were given.</p></main></body>
</html>
`;
}

export const checkoutScript = `'use strict';
(function () {
  var root = document.getElementById('checkout');
  if (!root || !root.dataset.reference) return;
  var api = '../transactions/' + encodeURIComponent(root.dataset.reference);
  var form = document.getElementById('card-form');
  var buttons = form ? form.querySelectorAll('button') : [];
  var error = document.getElementById('form-error');
  var titles = { success: 'Payment successful', failed: 'Payment declined', abandoned: 'Payment cancelled' };

  function busy(on) {
    for (var i = 0; i < buttons.length; i++) buttons[i].disabled = on;
    root.setAttribute('aria-busy', on ? 'true' : 'false');
  }

  function goBack(url) {
    if (!url) return;
    setTimeout(function () { window.location.assign(url); }, 1500);
  }

  function show(tx) {
    var result = document.getElementById('result');
    result.className = 'result result-' + tx.status;
    document.getElementById('result-title').textContent = titles[tx.status] || tx.status;
    document.getElementById('result-detail').textContent =
      tx.status === 'success' ? 'Your payment was approved. The merchant has been notified.'
      : tx.status === 'abandoned' ? 'You cancelled this payment. Nothing was charged.'
      : (tx.gatewayResponse || 'The card was declined.');
    var back = document.getElementById('result-return');
    if (tx.redirectUrl) {
      document.getElementById('return-link').href = tx.redirectUrl;
      back.hidden = false;
    } else {
      document.getElementById('result-stay').hidden = false;
    }
    result.hidden = false;
    form.hidden = true;
    root.dataset.status = tx.status;
    goBack(tx.redirectUrl);
  }

  function fail(message) {
    error.textContent = message;
    error.hidden = false;
    busy(false);
  }

  function act(action, body) {
    error.hidden = true;
    busy(true);
    fetch(api + '/' + action, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body || {})
    }).then(function (res) {
      return res.json().then(function (json) {
        if (res.ok && json && json.success) return show(json.data);
        fail((json && json.error && json.error.message) || ('The payment could not be submitted (' + res.status + ').'));
      });
    }).catch(function () {
      fail('The payment could not be submitted: check your connection and try again.');
    });
  }

  if (form) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      act('pay', {
        cardNumber: document.getElementById('card-number').value,
        expiry: document.getElementById('card-expiry').value,
        cvv: document.getElementById('card-cvv').value
      });
    });
    document.getElementById('decline').addEventListener('click', function () { act('decline'); });
    document.getElementById('cancel').addEventListener('click', function () { act('cancel'); });
  }
  if (root.dataset.status !== 'pending') goBack(root.dataset.redirectUrl);
})();
`;

export const checkoutStyles = `*{box-sizing:border-box}
body{margin:0;background:#f2f4f7;color:#1d2433;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.checkout{max-width:30rem;margin:2rem auto;background:#fff;border-radius:12px;padding:1.5rem 1.75rem;box-shadow:0 2px 12px rgba(16,24,40,.08)}
.badge{display:inline-block;margin:0 0 1rem;padding:.15rem .6rem;border-radius:999px;background:#fff4e5;color:#8a4b00;font-size:.8rem;font-weight:600}
.merchant{margin:0;color:#5b6476;font-weight:600}
h1{margin:.2rem 0;font-size:2.1rem}
.description{margin:0 0 .75rem}
.facts{display:grid;grid-template-columns:auto 1fr;gap:.2rem .75rem;margin:0 0 1.25rem;font-size:.9rem;color:#5b6476}
.facts dd{margin:0}
label{display:block;font-size:.85rem;font-weight:600;margin-bottom:.75rem}
input{display:block;width:100%;margin-top:.25rem;padding:.6rem .7rem;border:1px solid #c9cfda;border-radius:8px;font:inherit}
.row{display:flex;gap:.75rem}.row>*{flex:1}
button{width:100%;padding:.7rem;border:0;border-radius:8px;font:inherit;font-weight:600;cursor:pointer}
button:disabled{opacity:.6;cursor:progress}
.pay{background:#0b6e4f;color:#fff;margin-bottom:.6rem}
.decline{background:#fdecea;color:#a1261b}
.cancel{background:#eef0f4;color:#1d2433}
.error{color:#a1261b}
.result{padding:1rem;border-radius:8px;margin-bottom:1rem;background:#eef0f4}
.result h2{margin:0 0 .25rem}
.result-success{background:#e6f4ee}.result-failed{background:#fdecea}
.test-cards{margin-top:1.5rem;font-size:.85rem;color:#5b6476}
.test-cards h2{font-size:1rem;color:#1d2433}
table{width:100%;border-collapse:collapse}td code{white-space:nowrap}th,td{text-align:left;padding:.3rem .4rem;border-bottom:1px solid #e4e7ec}
[hidden]{display:none!important}
`;
