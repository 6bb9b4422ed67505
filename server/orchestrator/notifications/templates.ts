/** The mails the Orchestrator sends. Subjects never carry a secret: they outlive delivery as metadata. */
export const templateNames = [
  'account_verify',
  'password_reset',
  'provisioned_account',
  'security_alert',
  'centre_invitation',
] as const;
export type TemplateName = (typeof templateNames)[number];

/** The one-time code or generated password a mail carries, pulled out for the dev mailbox only. */
export interface MailSecrets {
  otp?: string;
  password?: string;
}

export interface RenderedMail {
  subject: string;
  text: string;
  secrets: MailSecrets;
}

interface Template {
  required: string[];
  render(v: Record<string, string>, to: string): { subject: string; text: string };
  /** Which variable holds the secret this mail carries, if any. */
  secret?: 'otp' | 'password';
}

const templates: Record<TemplateName, Template> = {
  account_verify: {
    required: ['otp', 'expiresInMinutes'],
    secret: 'otp',
    render: (v) => ({
      subject: 'Verify your CAP account',
      text: [
        'Welcome to CAP.',
        '',
        `Your verification code is ${v.otp}.`,
        `It expires in ${v.expiresInMinutes} minutes. If you did not create an account, ignore this mail.`,
      ].join('\n'),
    }),
  },
  password_reset: {
    required: ['otp', 'expiresInMinutes'],
    secret: 'otp',
    render: (v) => ({
      subject: 'Reset your CAP password',
      text: [
        `Your password reset code is ${v.otp}.`,
        `It expires in ${v.expiresInMinutes} minutes. If you did not ask to reset your password, ignore this mail:`,
        'your password has not changed.',
      ].join('\n'),
    }),
  },
  provisioned_account: {
    required: ['password'],
    secret: 'password',
    render: (v, to) => ({
      subject: 'Your CAP account is ready',
      text: [
        greeting(v.name),
        '',
        'An account has been created for you on CAP.',
        ...(v.centreName || v.role ? [membershipLine(v.centreName, v.role)] : []),
        `Sign in with ${to} and this temporary password: ${v.password}`,
        ...(v.loginUrl ? [`Sign in at ${v.loginUrl}`] : []),
        'You will be asked to choose a new password when you first sign in.',
      ].join('\n'),
    }),
  },
  security_alert: {
    required: ['what'],
    render: (v) => ({
      subject: 'Wrong codes were entered for your CAP account',
      text: [
        `Several wrong codes were entered for the ${v.what} of your CAP account. To protect it, codes are`,
        'refused for a while after each further wrong one.',
        'If this was you, wait a little and use the newest code we sent. If not, no action is needed:',
        'your password has not changed, and you can still sign in with it.',
      ].join('\n'),
    }),
  },
  centre_invitation: {
    required: [],
    render: (v) => ({
      subject: 'You have been invited to a centre on CAP',
      text: [
        greeting(v.name),
        '',
        membershipLine(v.centreName, v.role).replace('You have been added to', 'You have been invited to join'),
        'Sign in to CAP with your existing account and accept the invitation to start; or decline it.',
        'Nothing changes in your account until you accept.',
      ].join('\n'),
    }),
  },
};

/**
 * Text that somebody typed (a name, a centre name) as it may appear in a mail: one line, at most 100
 * characters, and never a link a mail program would make clickable (`https://`, `www.`, `bank.example`
 * come out as `https[:]//`, `www[.]`, `bank[.]example`).
 */
export function userText(value: string): string {
  return value
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 100)
    .replace(/:\/\//g, '[:]//')
    .replace(/(\w)\.(?=\w)/g, '$1[.]');
}

const greeting = (name: string | undefined) => (name ? `Hello ${userText(name)},` : 'Hello,');

/** "You have been added to Lagos Skills Centre as super admin." from the centre name and/or role wire value. */
function membershipLine(centreName: string | undefined, role: string | undefined): string {
  const as = role ? ` as ${userText(role.replaceAll('_', ' '))}` : '';
  return centreName ? `You have been added to ${userText(centreName)}${as}.` : `You have been added${as}.`;
}

/** Renders a template. A missing variable is a bug in the caller, so it throws. */
export function renderMail(name: TemplateName, variables: Record<string, string>, to: string): RenderedMail {
  const template = templates[name];
  const missing = template.required.filter((key) => !variables[key]);
  if (missing.length) throw new Error(`mail template ${name} needs ${missing.join(', ')}`);
  return {
    ...template.render(variables, to),
    secrets: template.secret ? { [template.secret]: variables[template.secret] } : {},
  };
}
