export interface ErrorDetail {
  field?: string;
  issue: string;
}

/**
 * An error with a place in the API: an HTTP status, a stable dotted code (documented in the OpenAPI
 * documents) and a message a person can read. Anything else that reaches the error handler is a bug (500).
 */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const badRequest = (code: string, message: string) => new AppError(400, code, message);
export const unauthorized = (code: string, message: string) => new AppError(401, code, message);
export const forbidden = (code: string, message: string) => new AppError(403, code, message);
export const notFound = (message = 'No such resource.') => new AppError(404, 'http.not_found', message);
export const conflict = (code: string, message: string, details?: ErrorDetail[]) =>
  new AppError(409, code, message, details);
/** A problem of one field: every detail of `validation.failed` names its field (the documents promise it). */
export type FieldDetail = Required<ErrorDetail>;
export const validationFailed = (details: FieldDetail[], message = 'The request is not valid.') =>
  new AppError(422, 'validation.failed', message, details);
export const unprocessable = (code: string, message: string, details?: ErrorDetail[]) =>
  new AppError(422, code, message, details);
export const tooManyRequests = (code: string, message: string, retryAfterSeconds?: number) =>
  new AppError(
    429,
    code,
    message,
    undefined,
    retryAfterSeconds ? { 'Retry-After': String(retryAfterSeconds) } : undefined,
  );
/** An account that still has its generated password may do nothing else before changing it. */
export const passwordChangeRequired = () =>
  forbidden(
    'auth.password_change_required',
    'Choose a new password first: this account still has the password that was mailed to it.',
  );
export const serviceUnavailable = (code: string, message: string, retryAfterSeconds?: number) =>
  new AppError(
    503,
    code,
    message,
    undefined,
    retryAfterSeconds ? { 'Retry-After': String(retryAfterSeconds) } : undefined,
  );
export const badGateway = (code: string, message: string) => new AppError(502, code, message);
