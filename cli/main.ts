import { Command, CommanderError } from 'commander';
import { UsageError, exitCodes } from './output.ts';
import { registerServe } from './commands/serve.ts';
import { registerDemo } from './commands/demo.ts';
import { registerGrpc } from './commands/grpc.ts';
import { registerKeys } from './commands/keys.ts';
import { registerAccount } from './commands/account.ts';
import { registerMail } from './commands/mail.ts';
import { registerGoogleToken } from './commands/google-token.ts';
import { registerRun } from './commands/run.ts';
import { registerPact } from './commands/pact.ts';
import { registerAdmin } from './commands/admin.ts';
import { registerCentre } from './commands/centre.ts';
import { registerIdentity } from './commands/identity.ts';
import { registerInvitations } from './commands/invitations.ts';
import { registerStaff } from './commands/staff.ts';
import { registerPay } from './commands/pay.ts';
import { registerSeed } from './commands/seed.ts';
import { registerApplication, registerWallet } from './commands/application.ts';
import { registerInterview } from './commands/interview.ts';
import { registerMessaging } from './commands/messaging.ts';
import { registerAssessor } from './commands/assessor.ts';
import { registerCertify } from './commands/certify.ts';
import { registerLms } from './commands/lms.ts';
import { registerLmsLearning } from './commands/lms-learning.ts';
import { registerCompletion } from './commands/completion.ts';
import { registerEvents } from './commands/events.ts';
import { projectPath } from '../server/platform/paths.ts';
import { readFileSync } from 'node:fs';

/** Builds the capctl program. Each command module adds its own subcommands. */
export function buildProgram(): Command {
  const program = new Command('capctl')
    .description('Run, seed, script and verify the CAP platform reference')
    .version(version(), '-V, --version', 'print the version of capctl')
    .showHelpAfterError()
    .exitOverride();
  for (const register of [
    registerServe,
    registerDemo,
    registerSeed,
    registerRun,
    registerAccount,
    registerIdentity,
    registerAdmin,
    registerCentre,
    registerStaff,
    registerAssessor,
    registerInvitations,
    registerApplication,
    registerInterview,
    registerPay,
    registerCertify,
    registerWallet,
    registerMessaging,
    registerLms,
    registerMail,
    registerGoogleToken,
    registerKeys,
    registerGrpc,
    registerPact,
    registerLmsLearning,
    registerEvents,
  ])
    register(program);
  registerCompletion(program); // last: it describes every command registered before it
  return program;
}

/** The version in package.json. */
function version(): string {
  return (JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { version: string }).version;
}

/** Runs capctl and resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : exitCodes.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? exitCodes.ok : exitCodes.usage;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`capctl: ${err.message}\n`);
      return exitCodes.usage;
    }
    throw err;
  }
}
