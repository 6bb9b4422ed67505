import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { notFound, unprocessable } from '../../platform/http/errors.ts';
import { nigerianBanks } from './banks-ng.ts';

/** Answers who holds an account: the registered name, or null when the bank has no such account. */
export interface BankAccountResolver {
  accountName(bankCode: string, accountNumber: string): Promise<string | null>;
}

const first = [
  'Adaeze',
  'Babajide',
  'Chinedu',
  'Damilola',
  'Emeka',
  'Funmilayo',
  'Halima',
  'Ibrahim',
  'Kemi',
  'Musa',
  'Ngozi',
  'Olumide',
  'Tobi',
  'Uche',
  'Yetunde',
  'Zainab',
];
const last = ['Adeyemi', 'Bello', 'Chukwu', 'Eze', 'Okafor', 'Olawale', 'Onyeka', 'Suleiman', 'Usman', 'Yakubu'];

/**
 * The sandbox's bank registry: every account number names someone (the same name each time, derived
 * from the bank code and number), except numbers ending in 0000, which no bank holds. Like a real
 * name-enquiry service, a lookup takes a moment and is logged.
 */
export function createSandboxBankResolver(logger: Logger): BankAccountResolver {
  return {
    async accountName(bankCode, accountNumber) {
      logger.info({ bankCode }, 'bank account lookup sent to the sandbox bank registry');
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (accountNumber.endsWith('0000')) return null;
      const digest = createHash('sha256').update(`${bankCode}:${accountNumber}`).digest();
      return `${last[digest[0]! % last.length]} ${first[digest[1]! % first.length]} ${first[digest[2]! % first.length]}`.toUpperCase();
    },
  };
}

/** How long a lookup is remembered: a name 12 hours, a miss 60 seconds (the spec's limits). */
export const bankLookupTtlMs = { hit: 12 * 3600_000, miss: 60_000 };
const cacheLimit = 10_000;

/**
 * Reference data the clients read: banks by country, the account-name lookup behind a cache, and
 * address data (ISO countries; Nigeria's 36 states, the FCT and their 774 LGAs) from maintained
 * packages, by the display names the clients store.
 */
export function createReferenceData(resolver: BankAccountResolver, now: () => number = Date.now) {
  const banksByCountry = new Map([
    [
      'NG',
      nigerianBanks
        .map((bank) => ({
          id: `NG-${bank.code}`,
          name: bank.name,
          slug: bank.name
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, '-')
            .replace(/^-|-$/g, ''),
          code: bank.code,
          type: bank.type,
          currency: 'NGN',
          country: 'NG',
        }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    ],
  ]);
  const lookups = new Map<string, { name: string | null; until: number }>();

  /** Country names by ISO code, loaded on first use (the package holds every language). */
  let countries: Array<{ code: string; name: string }> | undefined;
  async function countryList() {
    if (!countries) {
      const { default: iso } = await import('i18n-iso-countries');
      countries = Object.entries(iso.getNames('en', { select: 'official' }))
        .map(([code, name]) => ({ code, name }))
        .sort((a, b) => a.name.localeCompare(b.name));
    }
    return countries;
  }
  // Named imports: the package is CommonJS marked __esModule, so its default export differs by loader.
  const nigeria = () => import('nigerian-states-and-lgas').then(({ states, lgas }) => ({ states, lgas }));
  async function country(code: string) {
    const found = (await countryList()).find((c) => c.code === code.toUpperCase());
    if (!found) throw notFound(`No country has the ISO code ${code}.`);
    return found;
  }

  /** The ISO alpha-2 code a client names a country by: its alpha-2 or alpha-3 code, or an English name in any case. */
  async function countryCode(named: string): Promise<string | undefined> {
    const { default: iso } = await import('i18n-iso-countries');
    const value = named.trim();
    if (/^[A-Za-z]{2,3}$/.test(value) && iso.isValid(value.toUpperCase())) return iso.toAlpha2(value.toUpperCase());
    return iso.getAlpha2Code(value, 'en');
  }

  return {
    /** A country's banks (an empty list for a country with none held); a value naming no country is a 422. */
    async banks(named: string) {
      const code = await countryCode(named);
      if (!code)
        throw unprocessable('validation.failed', 'That names no country.', [
          {
            field: 'query.country',
            issue: `names no country: give an ISO 3166-1 code or an English country name (${named})`,
          },
        ]);
      return banksByCountry.get(code) ?? [];
    },

    /** The registered name on an account; a second identical lookup within its time is not sent again. */
    async resolveAccount(input: {
      accountNumber: string;
      bankCode: string;
    }): Promise<{ result: object; cached: boolean }> {
      const bank = banksByCountry.get('NG')!.find((b) => b.code === input.bankCode);
      if (!bank)
        throw unprocessable('validation.failed', 'No bank has that code.', [
          { field: 'body.bankCode', issue: `is not the code of a bank GET /banks lists (${input.bankCode})` },
        ]);
      const key = `${bank.code}:${input.accountNumber}`;
      let entry = lookups.get(key);
      const cached = Boolean(entry && entry.until > now());
      if (!cached) {
        const name = await resolver.accountName(bank.code, input.accountNumber);
        entry = { name, until: now() + (name ? bankLookupTtlMs.hit : bankLookupTtlMs.miss) };
        lookups.delete(key);
        lookups.set(key, entry);
        if (lookups.size > cacheLimit) lookups.delete(lookups.keys().next().value!);
      }
      if (!entry!.name) {
        throw unprocessable('bank.account_not_found', `${bank.name} has no account ${input.accountNumber}.`, [
          { field: 'body.accountNumber', issue: 'no such account at this bank' },
        ]);
      }
      return {
        result: {
          accountNumber: input.accountNumber,
          bankCode: bank.code,
          bankName: bank.name,
          accountName: entry!.name,
        },
        cached,
      };
    },

    countries: countryList,

    /** A country's states by name; only Nigeria's are held (other countries: an empty list). */
    async states(countryCode: string) {
      const { code } = await country(countryCode);
      if (code !== 'NG') return [];
      return (await nigeria()).states().map((name) => ({ name }));
    },

    async lgas(countryCode: string, stateName: string) {
      const { code } = await country(countryCode);
      const data = await nigeria();
      const state =
        code === 'NG' ? data.states().find((s) => s.toLowerCase() === stateName.trim().toLowerCase()) : undefined;
      if (!state) throw notFound(`No state named ${stateName} is held for ${code}.`);
      return (data.lgas(state) ?? []).map((name) => ({ name }));
    },
  };
}

export type ReferenceData = ReturnType<typeof createReferenceData>;
