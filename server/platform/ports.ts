/** The port a listener (HTTP or gRPC) could not bind: reported as one clear line, not a stack trace. */
export class PortInUseError extends Error {
  override name = 'PortInUseError';
}
