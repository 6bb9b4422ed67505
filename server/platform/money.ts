/** Money on the wire: an integer count of minor units as a decimal string, and an ISO 4217 currency. */
export interface Money {
  amountMinorUnits: string;
  currency: string;
}

const integerPattern = /^-?(0|[1-9][0-9]*)$/;
const currencyPattern = /^[A-Z]{3}$/;

export class MoneyError extends Error {
  override name = 'MoneyError';
}

export function money(minorUnits: bigint | number | string, currency: string): Money {
  return { amountMinorUnits: toMinorUnits(minorUnits).toString(), currency: checkCurrency(currency) };
}

/** Parses a wire Money value; throws MoneyError on a fractional, non-numeric or unsafe amount. */
export function parseMoney(value: Money): { minor: bigint; currency: string } {
  return { minor: toMinorUnits(value.amountMinorUnits), currency: checkCurrency(value.currency) };
}

export function addMoney(a: Money, b: Money): Money {
  if (a.currency !== b.currency) throw new MoneyError(`cannot add ${a.currency} to ${b.currency}`);
  return money(BigInt(a.amountMinorUnits) + BigInt(b.amountMinorUnits), a.currency);
}

export function subtractMoney(a: Money, b: Money): Money {
  if (a.currency !== b.currency) throw new MoneyError(`cannot subtract ${b.currency} from ${a.currency}`);
  return money(BigInt(a.amountMinorUnits) - BigInt(b.amountMinorUnits), a.currency);
}

/**
 * A share of an amount given in basis points (1% = 100), rounded half away from zero to a whole minor
 * unit. Integer arithmetic only: fee splits never touch floating point.
 */
export function shareOf(amount: Money, basisPoints: number): Money {
  if (!Number.isInteger(basisPoints) || basisPoints < 0)
    throw new MoneyError('basis points must be a non-negative integer');
  const product = BigInt(amount.amountMinorUnits) * BigInt(basisPoints);
  const negative = product < 0n;
  const abs = negative ? -product : product;
  const rounded = (abs + 5000n) / 10000n;
  return money(negative ? -rounded : rounded, amount.currency);
}

/**
 * For people: `₦15,000.00` from `{amountMinorUnits: "1500000", currency: "NGN"}`, exactly (the decimal
 * string goes to Intl as it is, never through a float). A code Intl refuses prints as `XY 1500000`.
 */
export function formatMoney(
  amount: Money,
  locale = 'en-NG',
  display: 'narrowSymbol' | 'code' = 'narrowSymbol',
): string {
  let format: Intl.NumberFormat;
  try {
    format = new Intl.NumberFormat(locale, { style: 'currency', currency: amount.currency, currencyDisplay: display });
  } catch {
    return `${amount.currency} ${amount.amountMinorUnits}`;
  }
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  const negative = amount.amountMinorUnits.startsWith('-');
  const minor = (negative ? amount.amountMinorUnits.slice(1) : amount.amountMinorUnits).padStart(digits + 1, '0');
  const decimal = digits === 0 ? minor : `${minor.slice(0, -digits)}.${minor.slice(-digits)}`;
  // Intl formats a decimal string exactly; the type declarations only know numbers.
  return format.format(`${negative ? '-' : ''}${decimal}` as unknown as number);
}

function toMinorUnits(value: bigint | number | string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new MoneyError(`amount ${value} is not a whole number of minor units`);
    return BigInt(value);
  }
  if (!integerPattern.test(value)) throw new MoneyError(`amount "${value}" is not an integer string of minor units`);
  return BigInt(value);
}

function checkCurrency(currency: string): string {
  if (!currencyPattern.test(currency)) throw new MoneyError(`currency "${currency}" is not an ISO 4217 code`);
  return currency;
}
