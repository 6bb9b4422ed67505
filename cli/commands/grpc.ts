import type { Command } from 'commander';
import { print } from '../output.ts';
import type { CallOptions } from './grpc.action.ts';

/** `capctl grpc call|methods`: reflection-free calls built from the protos in proto/. */
export function registerGrpc(program: Command): void {
  const grpc = program.command('grpc').description('Call the platform gRPC services (built from proto/)');

  grpc
    .command('call')
    .description('Call one unary RPC with the service key and print the response')
    .argument('<method>', 'Service.Method, e.g. IdentityService.ProvisionAccount or its full name')
    .option('-d, --data <json>', 'request message as JSON, with the proto field names (snake_case)', '{}')
    .option(
      '-a, --address <host:port>',
      'server address (env CAPCTL_GRPC_ADDRESS; default: where the platform at --base-url says the service listens)',
    )
    .option(
      '--base-url <url>',
      'platform gateway asked for its gRPC addresses (env CAPCTL_BASE_URL, default http://127.0.0.1:4000)',
    )
    .option('-k, --service-key <key>', 'service key sent as x-platform-service-key (env ORCHESTRATOR_SERVICE_API_KEY)')
    .option('--timeout <ms>', 'deadline for the call in milliseconds', '10000')
    .option('--json', 'print machine-readable JSON only')
    .addHelpText(
      'after',
      '\nExit codes: 0 ok, 1 the RPC returned an error status, 2 usage error, 3 server unreachable.',
    )
    .action(async (method: string, options: CallOptions) =>
      (await import('./grpc.action.ts')).runCall(method, options),
    );

  grpc
    .command('methods')
    .description('List the RPCs that `grpc call` knows')
    .option('--json', 'print machine-readable JSON only')
    .action(async (options: { json?: boolean }) => {
      const methods = (await import('../../server/platform/grpc/proto.ts')).allMethodNames();
      print(methods, Boolean(options.json), () => methods.join('\n'));
    });
}
