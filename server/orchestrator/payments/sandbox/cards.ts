/**
 * The sandbox's test cards: what a card processor's test mode documents. A card number decides the
 * outcome; expiry and CVV are only checked for shape (and that the card has not expired). The same
 * table is shown on the checkout page and in the README.
 */

export interface TestCard {
  number: string;
  brand: 'visa' | 'mastercard' | 'verve';
  outcome: 'success' | 'failed';
  /** The processor's words for the outcome (the webhook's gatewayResponse). */
  message: string;
}

export const testCards: readonly TestCard[] = [
  { number: '4084084084084081', brand: 'visa', outcome: 'success', message: 'Approved' },
  { number: '5399838383838381', brand: 'mastercard', outcome: 'success', message: 'Approved' },
  { number: '5060666666666666666', brand: 'verve', outcome: 'success', message: 'Approved' },
  { number: '4000000000000002', brand: 'visa', outcome: 'failed', message: 'Declined by the issuing bank' },
  { number: '4000000000009995', brand: 'visa', outcome: 'failed', message: 'Insufficient funds' },
  { number: '4000000000000069', brand: 'visa', outcome: 'failed', message: 'Expired card' },
];

/** The card the checkout page fills in, and `capctl pay` uses when no --card is given. */
export const defaultCard = testCards[0]!;

/** What the decline button (and `capctl pay --decline`) reports. */
export const declineMessage = "Declined by the payer's bank";

/** Digits only: people type spaces and dashes. */
export const normaliseCardNumber = (number: string) => number.replace(/[\s-]/g, '');

/** The Luhn checksum every real card number passes. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let digit = digits.charCodeAt(i) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

/** `4084 0840 8408 4081` */
export const groupCardNumber = (digits: string) => digits.replace(/(\d{4})(?=\d)/g, '$1 ');

/** Whether an `MM/YY` expiry is still valid at `now` (a card is good to the end of its month). */
export function expiryValid(expiry: string, now = new Date()): boolean {
  const match = /^(\d{2})\s*\/\s*(\d{2})$/.exec(expiry.trim());
  if (!match) return false;
  const month = Number(match[1]);
  const year = 2000 + Number(match[2]);
  if (month < 1 || month > 12) return false;
  return Date.UTC(year, month, 1) > now.getTime();
}
