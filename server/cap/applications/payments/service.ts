import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { Logger } from '../../../platform/logger.ts';
import { conflict, forbidden, notFound, unprocessable } from '../../../platform/http/errors.ts';
import { Conditions, keysetRows } from '../../../platform/db/keyset.ts';
import { preparedReads } from '../../../platform/db/prepared.ts';
import { pageRequest } from '../../../platform/http/pagination.ts';
import { newId } from '../../../platform/ids.ts';
import type { PaymentCompletedData } from '../../../contracts/payment-completed.ts';
import type { PaymentRefundedData } from '../../../contracts/payment-refunded.ts';
import { lifecycleWriter, tableStore } from '../../../platform/lifecycle.ts';
import { stagesOf } from '../lifecycle.ts';
import { capPaymentLifecycle, type CapPaymentStatus } from './lifecycle.ts';
import { formatMoney, money, shareOf, type Money } from '../../../platform/money.ts';
import { renderCertificatePdf } from '../../../platform/pdf/certificate.ts';
import type { Application } from '../models.ts';
import type { Applications, Viewer } from '../service.ts';
import { upstreamFailure, type OrchestratorHttp, type PaymentsClient } from '../../../contracts/orchestrator-client.ts';
import type { Catalogue } from '../../catalogue/index.ts';
import { centresSql, type CentreRole, type Centres } from '../../centres/index.ts';
import { applicationsSql } from '../queries.ts';
import { isoTime } from '../../../platform/db/iso-time.ts';
import type { CentreContext } from '../../people/index.ts';
import type { ApplicationType } from '../vocabulary.ts';

export interface PriceInput {
  applicationType: ApplicationType;
  price: Money;
}

const onlyRoles = (context: CentreContext, roles: CentreRole[], what: string) => {
  if (!roles.includes(context.role))
    throw forbidden('centre.role_forbidden', `Only ${roles.join(' or ')} of the centre can ${what}.`);
};

interface PaymentRow {
  id: string;
  application_id: string;
  centre_id: string;
  attempt: number;
  payment_id: string;
  reference: string;
  checkout_url: string;
  amount_minor: string;
  currency: string;
  price_source: string;
  status: CapPaymentStatus;
  provider: string | null;
  initiated_at: Date;
  paid_at: Date | null;
  receipt_asset_id: string | null;
}

interface PaymentListRow {
  id: string;
  applicationId: string;
  centreId: string;
  centreName: string;
  candidateName: string;
  applicationType: ApplicationType;
  amount_minor: string;
  currency: string;
  status: CapPaymentStatus;
  paidAt: string | null;
  initiatedAt: string;
}

/**
 * Money in CAP: centre prices (never below the platform floor), the payment of an application through
 * the Orchestrator (gRPC InitiatePayment, then `payment.completed`), receipts, and the centre wallet as
 * a ledger: a payment credits the gross and debits the platform fee as its own line, once each.
 */
export function createCapPayments(deps: {
  sequelize: Sequelize;
  applications: Applications;
  catalogue: Pick<Catalogue, 'currentConfig'>;
  centres: Pick<Centres, 'lockedAccount' | 'findAll'>;
  payments: PaymentsClient;
  /** The Orchestrator's storage: receipts are stored there, owned by the payer. */
  files: Pick<OrchestratorHttp, 'storeFile' | 'assetUrls'>;
  logger: Logger;
  /** CAP_WEB_URL: the web app the payer returns to (empty: none configured). */
  webUrl: string;
  /** Whether a browser origin is on the allow-list (CORS_ORIGINS): a caller's return URL must be on it. */
  originAllowed: (origin: string) => boolean;
}) {
  const { sequelize, applications } = deps;
  const platformConfig = { current: deps.catalogue.currentConfig };
  const select = <T extends object>(sql: string, bind: unknown[], transaction?: Transaction) =>
    sequelize.query<T>(sql, { type: QueryTypes.SELECT, bind, transaction });
  const read = preparedReads(sequelize);
  /** The one writer of an attempt's status (lifecycle.ts). */
  const attemptWriter = lifecycleWriter(capPaymentLifecycle, {
    store: tableStore<PaymentRow>('cap.application_payments'),
  });

  /** The Orchestrator's RefundPayment (gRPC); a failure is 503/502, so the caller's transaction writes nothing. */
  async function requestRefund(paymentId: string, reason: string) {
    try {
      await deps.payments.refundPayment({ payment_id: paymentId, reason: reason.slice(0, 500) });
    } catch (err) {
      upstreamFailure(
        err,
        { unavailable: 'payment.unavailable', failed: 'payment.upstream_error' },
        'The payment service',
      );
    }
  }

  /** Ledger lines of one payment, each kind once however often it is written (the unique index on payment and kind). */
  async function ledger(transaction: Transaction, row: PaymentRow, currency: string, lines: Array<[string, string]>) {
    for (const [kind, amount] of lines) {
      await sequelize.query(
        `INSERT INTO cap.wallet_entries (id, centre_id, kind, amount_minor, currency, payment_id, application_id, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, now()) ON CONFLICT DO NOTHING`,
        { bind: [newId(), row.centre_id, kind, amount, currency, row.payment_id, row.application_id], transaction },
      );
    }
  }

  /**
   * The wallet's balance: the sum of its ledger, in the currency the ledger is kept in (every line is
   * a payment, its fee or a withdrawal in that currency; NGN while there is none). A ledger never
   * mixes currencies: a withdrawal in another one is refused.
   */
  async function balanceOf(centreId: string, transaction?: Transaction): Promise<Money> {
    const rows = await select<{ currency: string; balance: string }>(
      `SELECT currency, sum(amount_minor)::text AS balance FROM cap.wallet_entries WHERE centre_id = $1 GROUP BY currency ORDER BY max(created_at) DESC`,
      [centreId],
      transaction,
    );
    if (rows.length > 1)
      deps.logger.error(
        { centreId, currencies: rows.map((row) => row.currency) },
        'a wallet ledger holds more than one currency: its newest is reported',
      );
    return money(rows[0]?.balance ?? '0', rows[0]?.currency ?? 'NGN');
  }

  /** The centre's current price of each type that has one. */
  async function currentPrices(centreId: string, transaction?: Transaction) {
    const rows = await select<{
      application_type: ApplicationType;
      amount_minor: string;
      currency: string;
      effective_from: Date;
    }>(
      `SELECT DISTINCT ON (application_type) application_type, amount_minor, currency, effective_from FROM cap.centre_prices
        WHERE centre_id = $1 AND effective_from <= now() ORDER BY application_type, effective_from DESC, id DESC`,
      [centreId],
      transaction,
    );
    return rows.map((row) => ({
      applicationType: row.application_type,
      price: money(row.amount_minor, row.currency),
      effectiveFrom: row.effective_from.toISOString(),
    }));
  }

  /** The amount an application pays: the centre's price, or the platform floor when it has none or it is lower. */
  async function quoteFor(centreId: string, type: ApplicationType, transaction?: Transaction) {
    const floor = (await platformConfig.current()).floors[type];
    const price = (await currentPrices(centreId, transaction)).find((p) => p.applicationType === type)?.price;
    const useCentre =
      price && price.currency === floor.currency && BigInt(price.amountMinorUnits) >= BigInt(floor.amountMinorUnits);
    const amount = useCentre ? price : floor;
    return {
      amountMinorUnits: amount.amountMinorUnits,
      currency: amount.currency,
      source: useCentre ? ('centre' as const) : ('platform_floor' as const),
    };
  }

  async function setPrices(context: CentreContext, userId: string, items: PriceInput[]) {
    onlyRoles(context, ['super_admin', 'regular_admin'], 'set prices');
    const { floors } = await platformConfig.current();
    const problems = items.flatMap((item, i) => {
      const floor = floors[item.applicationType];
      if (item.price.currency !== floor.currency)
        return [{ field: `items[${i}].price.currency`, issue: `must be ${floor.currency}` }];
      if (BigInt(item.price.amountMinorUnits) < BigInt(floor.amountMinorUnits)) {
        return [
          {
            field: `items[${i}].price.amountMinorUnits`,
            issue: `must be at least the platform floor for ${item.applicationType}, ${floor.amountMinorUnits}`,
          },
        ];
      }
      return [];
    });
    if (problems.length)
      throw unprocessable('pricing.below_floor', 'A price is below the platform floor; nothing was changed.', problems);
    await sequelize.transaction(async (transaction) => {
      for (const item of items) {
        await sequelize.query(
          `INSERT INTO cap.centre_prices (id, centre_id, application_type, amount_minor, currency, effective_from, set_by) VALUES ($1, $2, $3, $4, $5, now(), $6)`,
          {
            bind: [
              newId(),
              context.centreId,
              item.applicationType,
              item.price.amountMinorUnits,
              item.price.currency,
              userId,
            ],
            transaction,
          },
        );
      }
    });
    const current = await currentPrices(context.centreId);
    return items.map((item) => current.find((p) => p.applicationType === item.applicationType)!);
  }

  /**
   * Where the checkout sends the payer back: the caller's `returnUrl` (an http(s) URL on an allowed
   * origin), else the application's page of the configured web app, else nowhere ('').
   */
  function returnUrlOf(applicationId: string, asked: string | undefined): string {
    if (asked === undefined)
      return deps.webUrl ? `${deps.webUrl}/dashboard/applications/${encodeURIComponent(applicationId)}` : '';
    let url: URL | undefined;
    try {
      url = new URL(asked);
    } catch {
      // refused below
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !deps.originAllowed(url.origin)) {
      throw unprocessable(
        'payment.return_url_not_allowed',
        'returnUrl must be an http(s) URL on an origin the platform allows (CORS_ORIGINS).',
        [{ field: 'returnUrl', issue: url ? `origin ${url.origin} is not an allowed origin` : 'is not a URL' }],
      );
    }
    return url.toString();
  }

  /**
   * The receipt of an application's payment. A completed payment's receipt document is a PDF (the
   * certificates' renderer), made when first read and stored in the Orchestrator as the payer's
   * asset; the row is locked meanwhile, so readers at once make one document.
   */
  async function receiptOf(application: Application) {
    const [row] = await select<PaymentRow>(
      `SELECT * FROM cap.application_payments WHERE application_id = $1 ORDER BY (status IN ('completed', 'refunding', 'refunded')) DESC, attempt DESC LIMIT 1`,
      [application.id],
    );
    if (!row) throw notFound('This application has not been paid for yet.');
    const [presented] = await applications.present([application]);
    const candidateName = presented!.candidate.name;
    let assetId = row.receipt_asset_id;
    if (row.paid_at && !assetId) {
      assetId = await sequelize.transaction(async (transaction) => {
        const [locked] = await select<PaymentRow>(
          `SELECT * FROM cap.application_payments WHERE id = $1 FOR UPDATE`,
          [row.id],
          transaction,
        );
        if (locked!.receipt_asset_id) return locked!.receipt_asset_id;
        const [centre] = await deps.centres.findAll([row.centre_id]);
        const amount = money(row.amount_minor, row.currency);
        const pdf = await renderCertificatePdf({
          title: 'Payment Receipt',
          preamble: 'Received from',
          holderName: candidateName,
          facts: [
            { label: 'Amount', value: formatMoney(amount, 'en-NG', 'code') },
            { label: 'For', value: `${application.type} application fee` },
            { label: 'Assessment centre', value: centre?.name ?? row.centre_id },
            {
              label: 'Paid on',
              value: `${row.paid_at!.toISOString().slice(0, 16).replace('T', ' ')} UTC, through ${row.provider ?? 'sandbox'}`,
            },
          ],
          issuedOn: row.paid_at!,
          verificationCode: row.reference,
          codeLabel: 'Payment reference',
          issuer: 'CAP Platform',
        });
        const stored = await deps.files.storeFile({
          ownerUserId: application.candidateUserId,
          bytes: pdf,
          fileName: `receipt-${row.reference}.pdf`,
          mimeType: 'application/pdf',
          purpose: 'receipt',
        });
        await sequelize.query(`UPDATE cap.application_payments SET receipt_asset_id = $2 WHERE id = $1`, {
          bind: [row.id, stored],
          transaction,
        });
        return stored;
      });
    }
    const urlOf = await deps.files.assetUrls([assetId]);
    return {
      status: row.status,
      paymentId: row.payment_id,
      reference: row.reference,
      amount: money(row.amount_minor, row.currency),
      currency: row.currency,
      applicationType: application.type,
      candidateName,
      assetId,
      url: urlOf(assetId),
      paidAt: row.paid_at ? row.paid_at.toISOString() : null,
      provider: row.provider ?? 'sandbox',
    };
  }

  /** Application payments of one centre (or all), newest first, with the candidate's and the centre's names: one statement a page. */
  async function paymentList(centreId: string | null, query: { status?: string; cursor?: string; limit?: number }) {
    const where = new Conditions();
    if (centreId) where.add('p.centre_id = ?', centreId);
    if (query.status) where.add('p.status = ?', query.status);
    const { items, meta } = await keysetRows<PaymentListRow>(read, pageRequest(query as Record<string, unknown>), {
      select: `p.id, p.application_id AS "applicationId", p.centre_id AS "centreId",
        coalesce(c.name, '') AS "centreName", ${applicationsSql.candidateName('a')} AS "candidateName",
        a.type AS "applicationType", p.amount_minor, p.currency, p.status,
        ${isoTime('p.paid_at')} AS "paidAt", ${isoTime('p.initiated_at')} AS "initiatedAt"`,
      // The centre joined, not a subquery a row: PostgreSQL reads it once for the page (a memoized lookup).
      from: `cap.application_payments p JOIN cap.applications a ON a.id = p.application_id ${centresSql.joinCentre('c', 'p.centre_id')}`,
      alias: 'p',
      where,
      key: 'p.id',
      desc: true,
    });
    return {
      // The fields written out: spreading the row into the reply cost a page a large share of its time.
      items: items.map((row) => ({
        applicationId: row.applicationId,
        centreId: row.centreId,
        centreName: row.centreName,
        candidateName: row.candidateName,
        applicationType: row.applicationType,
        amount: money(row.amount_minor, row.currency),
        status: row.status,
        paidAt: row.paidAt,
        initiatedAt: row.initiatedAt,
        receiptAvailable: row.status !== 'pending' && row.status !== 'failed',
      })),
      meta,
    };
  }

  return {
    prices: (context: CentreContext) => currentPrices(context.centreId),
    setPrice: async (context: CentreContext, userId: string, item: PriceInput) =>
      (await setPrices(context, userId, [item]))[0]!,
    setPrices,

    async quote(viewer: Viewer, applicationId: string) {
      const application = await applications.visible(viewer, applicationId);
      return quoteFor(application.centreId, application.type);
    },

    /**
     * Starts (or resumes) the payment of an application at its payment stage: the Orchestrator's
     * InitiatePayment with an idempotency key per attempt, so a repeated or concurrent pay never
     * charges twice. An attempt still pending is answered again (with the return URL it started with).
     */
    async pay(userId: string, applicationId: string, asked: { returnUrl?: string } = {}) {
      const returnUrl = returnUrlOf(applicationId, asked.returnUrl);
      const application = await applications.visible({ persona: 'candidate', userId }, applicationId);
      if (application.status !== 'in_progress' || application.currentStageKey !== 'payment') {
        throw conflict(
          'application.not_in_stage',
          `The application is at stage ${application.currentStageKey} (${application.status}): only an application at the payment stage is paid.`,
        );
      }
      const attempts = await select<PaymentRow>(
        `SELECT * FROM cap.application_payments WHERE application_id = $1 ORDER BY attempt DESC`,
        [applicationId],
      );
      const pending = attempts.find((row) => row.status === 'pending');
      if (pending) return { paymentId: pending.payment_id, checkoutUrl: pending.checkout_url };
      const attempt = (attempts[0]?.attempt ?? 0) + 1;
      const quote = await quoteFor(application.centreId, application.type);
      let started;
      try {
        started = await deps.payments.initiatePayment({
          payer_user_id: userId,
          purpose: 'PAYMENT_PURPOSE_CAP_APPLICATION',
          purpose_reference_id: applicationId,
          amount_minor: quote.amountMinorUnits,
          currency: quote.currency,
          beneficiary_centre_id: application.centreId,
          idempotency_key: `cap:application:${applicationId}:${attempt}`,
          return_url: returnUrl,
        });
      } catch (err) {
        upstreamFailure(
          err,
          { unavailable: 'payment.unavailable', failed: 'payment.upstream_error' },
          'The payment service',
        );
      }
      // A concurrent pay of the same attempt got the same payment (same idempotency key): the first row stays.
      await sequelize.transaction((transaction) =>
        attemptWriter.create(
          transaction,
          'start',
          {
            id: newId(),
            application_id: applicationId,
            centre_id: application.centreId,
            attempt,
            payment_id: started.payment_id,
            reference: started.reference,
            checkout_url: started.checkout_url,
            amount_minor: quote.amountMinorUnits,
            currency: quote.currency,
            price_source: quote.source,
            initiated_at: new Date(),
          },
          { by: 'candidate', ignoreDuplicates: true },
        ),
      );
      return { paymentId: started.payment_id, checkoutUrl: started.checkout_url };
    },

    /**
     * `payment.completed` for a CAP application, in the delivery's transaction (the bus keeps it to one
     * effect): the attempt is completed, the application leaves the payment stage, and the centre's
     * wallet gets the gross and the platform fee as two ledger lines.
     */
    async completed(data: PaymentCompletedData, transaction: Transaction) {
      const [row] = await select<PaymentRow>(
        `SELECT * FROM cap.application_payments WHERE payment_id = $1 FOR UPDATE`,
        [data.paymentId],
        transaction,
      );
      if (!row) {
        deps.logger.warn(
          { paymentId: data.paymentId },
          'payment.completed for an application payment CAP did not start: ignored',
        );
        return;
      }
      if (row.status !== 'pending') return;
      await attemptWriter.move(transaction, row, 'completed', {
        by: 'orchestrator',
        changes: { paid_at: new Date(data.completedAt), provider: data.provider },
      });
      const application = await applications
        .visible({ persona: 'candidate', userId: data.payerUserId }, row.application_id, transaction)
        .catch(() => undefined);
      if (application && application.currentStageKey === 'payment' && application.status === 'in_progress') {
        await applications.move(application, 'payment_completed', 'platform', null, transaction);
      }
      const fee = shareOf(data.amount, (await platformConfig.current()).feeBasisPoints);
      await ledger(transaction, row, data.amount.currency, [
        ['application_payment', data.amount.amountMinorUnits],
        ['platform_fee', `-${fee.amountMinorUnits}`],
      ]);
      // Paid after the candidate withdrew (a checkout left open): CAP gives the money back. Asked in the
      // delivery's transaction, so a failed call is retried with the event and the refund is asked once.
      if (application?.status === 'withdrawn') {
        const [paid] = await select<PaymentRow>(
          `SELECT * FROM cap.application_payments WHERE id = $1`,
          [row.id],
          transaction,
        );
        await attemptWriter.move(transaction, paid!, 'refund', { by: 'platform' });
        await requestRefund(
          row.payment_id,
          `Application ${row.application_id} was withdrawn before its payment completed`,
        );
      }
    },

    /** `payment.failed`: the attempt is over, so the next pay starts a new one. */
    async failed(paymentId: string, transaction: Transaction) {
      const [row] = await select<PaymentRow>(
        `SELECT * FROM cap.application_payments WHERE payment_id = $1 FOR UPDATE`,
        [paymentId],
        transaction,
      );
      if (row?.status === 'pending') await attemptWriter.move(transaction, row, 'failed', { by: 'orchestrator' });
    },

    /**
     * `payment.refunded`, in the delivery's transaction (the bus keeps it to one effect): the attempt is
     * refunded and the centre's wallet gets the lines that undo the payment's, each once: the gross back
     * out (`refund`) and the platform fee the payment took back in (`platform_fee_refund`), so the
     * wallet is as it was before the payment, to the minor unit.
     */
    async refunded(data: PaymentRefundedData, transaction: Transaction) {
      const [row] = await select<PaymentRow>(
        `SELECT * FROM cap.application_payments WHERE payment_id = $1 FOR UPDATE`,
        [data.paymentId],
        transaction,
      );
      if (!row) {
        deps.logger.warn(
          { paymentId: data.paymentId },
          'payment.refunded for an application payment CAP did not start: ignored',
        );
        return;
      }
      if (row.status !== 'completed' && row.status !== 'refunding' && row.status !== 'refunded') {
        deps.logger.warn(
          { paymentId: data.paymentId, status: row.status },
          'payment.refunded for a payment CAP has not seen completed: ignored',
        );
        return;
      }
      const applied = await attemptWriter.move(transaction, row, 'refunded', {
        by: 'orchestrator',
        changes: { refunded_at: new Date(data.refundedAt) },
      });
      if (!applied.changed) return;
      const [fee] = await select<{ amount_minor: string }>(
        `SELECT amount_minor::text FROM cap.wallet_entries WHERE payment_id = $1 AND kind = 'platform_fee'`,
        [row.payment_id],
        transaction,
      );
      await ledger(transaction, row, data.amount.currency, [
        ['refund', `-${data.amount.amountMinorUnits}`],
        ...(fee ? [['platform_fee_refund', fee.amount_minor.replace(/^-/, '')] as [string, string]] : []),
      ]);
    },

    /**
     * The candidate withdraws their application (any stage before it is certified; a finished one is 409
     * `application.not_in_stage`). A paid application withdrawn before its assessment starts (still at
     * the first stage after payment: folder arrangement, or an NSQ induction) is refunded in full: the
     * Orchestrator's RefundPayment is asked in the withdrawal's transaction, so when it cannot be reached
     * nothing changes (503/502) and the candidate tries again; the wallet is debited when the provider's
     * refund arrives (`payment.refunded`).
     */
    async withdrawApplication(userId: string, applicationId: string, reason: string | undefined) {
      return sequelize.transaction(async (transaction) => {
        const application = await applications.visible({ persona: 'candidate', userId }, applicationId, transaction);
        const [paid] = await select<PaymentRow>(
          `SELECT * FROM cap.application_payments WHERE application_id = $1 AND status = 'completed' FOR UPDATE`,
          [applicationId],
          transaction,
        );
        const refundable =
          paid && application.status === 'in_progress' && application.currentStageKey === stagesOf[application.type][2];
        await applications.move(application, 'withdraw', 'candidate', userId, transaction, reason ?? null);
        if (refundable) {
          await attemptWriter.move(transaction, paid, 'refund', { by: 'candidate' });
          await requestRefund(
            paid.payment_id,
            `Application ${applicationId} withdrawn by the candidate${reason ? `: ${reason}` : ''}`,
          );
        }
        return {
          id: application.id,
          status: application.status,
          currentStageKey: application.currentStageKey,
          refund: refundable
            ? {
                paymentId: paid.payment_id,
                status: 'refunding' as const,
                amount: money(paid.amount_minor, paid.currency),
              }
            : null,
        };
      });
    },

    /** The newest completed payment of the application, else its newest attempt (404 before any), for its candidate or centre. */
    receipt: async (viewer: Viewer, applicationId: string) =>
      receiptOf(await applications.visible(viewer, applicationId)),

    /** The same receipt, for platform staff. */
    async adminReceipt(applicationId: string) {
      const application = await applications.byId(applicationId);
      if (!application) throw notFound(`No application has the id ${applicationId}.`);
      return receiptOf(application);
    },

    wallet: async (context: CentreContext) => ({ balance: await balanceOf(context.centreId) }),

    /**
     * A withdrawal to the centre's bank account, in the wallet's currency and never more than the
     * balance: the centre row is locked, so concurrent withdrawals are taken one at a time against the
     * balance each leaves.
     */
    async withdraw(context: CentreContext, userId: string, amount: Money) {
      onlyRoles(context, ['super_admin'], 'withdraw from the wallet');
      return sequelize.transaction(async (transaction) => {
        const account = await deps.centres.lockedAccount(context.centreId, transaction);
        const held = await balanceOf(context.centreId, transaction);
        if (amount.currency !== held.currency) {
          throw conflict(
            'wallet.currency_mismatch',
            `The wallet holds ${held.currency}: a withdrawal is in ${held.currency} too. Nothing was paid out.`,
            [{ field: 'amount.currency', issue: `must be ${held.currency}, the wallet's currency` }],
          );
        }
        if (!account?.bank || !account.accountNo) {
          throw conflict(
            'wallet.no_bank_account',
            'The centre has no bank account to pay out to: add one to its profile first.',
          );
        }
        const balance = BigInt(held.amountMinorUnits);
        if (BigInt(amount.amountMinorUnits) > balance) {
          throw conflict(
            'wallet.insufficient_funds',
            `The wallet holds ${balance} minor units: a withdrawal cannot exceed it.`,
          );
        }
        await sequelize.query(
          `INSERT INTO cap.wallet_entries (id, centre_id, kind, amount_minor, currency, created_by, created_at) VALUES ($1, $2, 'withdrawal', $3, $4, $5, now())`,
          { bind: [newId(), context.centreId, `-${amount.amountMinorUnits}`, amount.currency, userId], transaction },
        );
        return {
          balance: money(balance - BigInt(amount.amountMinorUnits), amount.currency),
          withdrawal: { amount, bank: account.bank, accountNo: `******${String(account.accountNo).slice(-4)}` },
        };
      });
    },

    async centreSummary(context: CentreContext) {
      onlyRoles(context, ['super_admin'], 'see the centre payments');
      const [row] = await select<{ revenue: string | null; completed: number; pending: number }>(
        `SELECT sum(amount_minor) FILTER (WHERE status = 'completed')::text AS revenue,
                count(*) FILTER (WHERE status = 'completed')::int AS completed, count(*) FILTER (WHERE status = 'pending')::int AS pending
           FROM cap.application_payments WHERE centre_id = $1`,
        [context.centreId],
      );
      return {
        totalRevenue: money(row?.revenue ?? '0', 'NGN'),
        completedCount: row?.completed ?? 0,
        pendingCount: row?.pending ?? 0,
      };
    },

    /** The centre's payments, newest first (super admins only). */
    async centreList(context: CentreContext, query: { status?: string; cursor?: string; limit?: number }) {
      onlyRoles(context, ['super_admin'], 'see the centre payments');
      return paymentList(context.centreId, query);
    },

    /** Every centre's payments, for platform staff. */
    adminList: (query: { status?: string; cursor?: string; limit?: number }) => paymentList(null, query),

    /** What the platform took (fees), what reached wallets (gross), and what is still being paid. */
    async adminSummary() {
      const [row] = await select<{ fees: string | null; deposits: string | null; pending: string | null }>(
        `SELECT (SELECT -sum(amount_minor) FROM cap.wallet_entries WHERE kind IN ('platform_fee', 'platform_fee_refund'))::text AS fees,
                (SELECT sum(amount_minor) FROM cap.wallet_entries WHERE kind IN ('application_payment', 'refund'))::text AS deposits,
                (SELECT sum(amount_minor) FROM cap.application_payments WHERE status = 'pending')::text AS pending`,
        [],
      );
      return {
        platformFees: money(row?.fees ?? '0', 'NGN'),
        walletDeposits: money(row?.deposits ?? '0', 'NGN'),
        pendingGross: money(row?.pending ?? '0', 'NGN'),
      };
    },
  };
}

export type CapPayments = ReturnType<typeof createCapPayments>;
