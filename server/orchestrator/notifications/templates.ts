/** The mails the Orchestrator sends. Subjects never carry a secret: they outlive delivery as metadata. */
export const templateNames = ['account_verify', 'password_reset', 'provisioned_account'] as const;
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
  /** Which variable holds the secret this mail carries. */
  secret: 'otp' | 'password';
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
        v.name ? `Hello ${v.name},` : 'Hello,',
        '',
        'An account has been created for you on CAP.',
        ...(v.centreName || v.role ? [membershipLine(v.centreName, v.role)] : []),
        `Sign in with ${to} and this temporary password: ${v.password}`,
        ...(v.loginUrl ? [`Sign in at ${v.loginUrl}`] : []),
        'You will be asked to choose a new password when you first sign in.',
      ].join('\n'),
    }),
  },
};

/** "You have been added to Lagos Skills Centre as super admin." from the centre name and/or role wire value. */
function membershipLine(centreName: string | undefined, role: string | undefined): string {
  const as = role ? ` as ${role.replaceAll('_', ' ')}` : '';
  return centreName ? `You have been added to ${centreName}${as}.` : `You have been added${as}.`;
}

/** Renders a template. A missing variable is a bug in the caller, so it throws. */
export function renderMail(name: TemplateName, variables: Record<string, string>, to: string): RenderedMail {
  const template = templates[name];
  const missing = template.required.filter((key) => !variables[key]);
  if (missing.length) throw new Error(`mail template ${name} needs ${missing.join(', ')}`);
  return { ...template.render(variables, to), secrets: { [template.secret]: variables[template.secret] } };
}
