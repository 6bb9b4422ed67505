/**
 * Nigerian banks and their CBN / NIBSS institution codes, as payment providers list them. No
 * maintained npm package carries the codes (banks-ng has names and logos only), so the list is kept
 * here; review it against the provider's bank list when a bank is licensed, merged or renamed.
 */
export type BankType = 'commercial' | 'merchant' | 'non_interest' | 'microfinance' | 'payment_service' | 'mortgage';

export const nigerianBanks: Array<{ name: string; code: string; type: BankType }> = [
  { name: 'Access Bank', code: '044', type: 'commercial' },
  { name: 'Citibank Nigeria', code: '023', type: 'commercial' },
  { name: 'Ecobank Nigeria', code: '050', type: 'commercial' },
  { name: 'Fidelity Bank', code: '070', type: 'commercial' },
  { name: 'First Bank of Nigeria', code: '011', type: 'commercial' },
  { name: 'First City Monument Bank', code: '214', type: 'commercial' },
  { name: 'Globus Bank', code: '00103', type: 'commercial' },
  { name: 'Guaranty Trust Bank', code: '058', type: 'commercial' },
  { name: 'Keystone Bank', code: '082', type: 'commercial' },
  { name: 'Optimus Bank', code: '107', type: 'commercial' },
  { name: 'Parallex Bank', code: '104', type: 'commercial' },
  { name: 'Polaris Bank', code: '076', type: 'commercial' },
  { name: 'Premium Trust Bank', code: '105', type: 'commercial' },
  { name: 'Providus Bank', code: '101', type: 'commercial' },
  { name: 'Signature Bank', code: '106', type: 'commercial' },
  { name: 'Stanbic IBTC Bank', code: '221', type: 'commercial' },
  { name: 'Standard Chartered Bank', code: '068', type: 'commercial' },
  { name: 'Sterling Bank', code: '232', type: 'commercial' },
  { name: 'SunTrust Bank', code: '100', type: 'commercial' },
  { name: 'Titan Trust Bank', code: '102', type: 'commercial' },
  { name: 'Union Bank of Nigeria', code: '032', type: 'commercial' },
  { name: 'United Bank for Africa', code: '033', type: 'commercial' },
  { name: 'Unity Bank', code: '215', type: 'commercial' },
  { name: 'Wema Bank', code: '035', type: 'commercial' },
  { name: 'Zenith Bank', code: '057', type: 'commercial' },
  { name: 'Coronation Merchant Bank', code: '559', type: 'merchant' },
  { name: 'FSDH Merchant Bank', code: '501', type: 'merchant' },
  { name: 'Rand Merchant Bank', code: '502', type: 'merchant' },
  { name: 'Jaiz Bank', code: '301', type: 'non_interest' },
  { name: 'Lotus Bank', code: '303', type: 'non_interest' },
  { name: 'TAJBank', code: '302', type: 'non_interest' },
  { name: 'Kuda Microfinance Bank', code: '50211', type: 'microfinance' },
  { name: 'Moniepoint Microfinance Bank', code: '50515', type: 'microfinance' },
  { name: 'Rubies Microfinance Bank', code: '125', type: 'microfinance' },
  { name: 'VFD Microfinance Bank', code: '566', type: 'microfinance' },
  { name: 'OPay', code: '999992', type: 'payment_service' },
  { name: 'PalmPay', code: '999991', type: 'payment_service' },
  { name: 'Abbey Mortgage Bank', code: '801', type: 'mortgage' },
];
