/** Resolves `service.operationId` to a method and a gateway path template from the service's OpenAPI. */
import type { Agent } from 'undici';
import { isSuccess, send } from './http.ts';

export interface Operation {
  method: string;
  /** Gateway path with `{name}` placeholders, e.g. `/v1/cap/applications/{id}`. */
  path: string;
}

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export class OperationCatalog {
  private readonly services = new Map<string, Promise<Map<string, Operation>>>();

  constructor(
    private readonly baseUrl: string,
    private readonly dispatcher: Agent,
  ) {}

  /** The operation, or undefined when the service's document has no such operationId. */
  async find(operation: string): Promise<Operation | undefined> {
    const [service, operationId] = operation.split('.') as [string, string];
    let operations = this.services.get(service);
    if (!operations) {
      operations = this.load(service);
      this.services.set(service, operations);
    }
    return (await operations).get(operationId);
  }

  /** Where the document of an operation's service is served, e.g. `/v1/cap/openapi.json`. */
  documentPath(operation: string): string {
    return `/v1/${operation.split('.')[0]}/openapi.json`;
  }

  private async load(service: string): Promise<Map<string, Operation>> {
    const prefix = `/v1/${service}`;
    const url = `${this.baseUrl}${this.documentPath(service)}`;
    const res = await send({ method: 'GET', url, headers: { accept: 'application/json' } }, this.dispatcher);
    const paths = (res.body as { paths?: Record<string, Record<string, { operationId?: string }>> })?.paths;
    if (!isSuccess(res.status) || !paths) throw new Error(`cannot read ${url} (status ${res.status})`);
    const operations = new Map<string, Operation>();
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, definition] of Object.entries(item)) {
        if (methods.includes(method) && definition?.operationId) {
          operations.set(definition.operationId, { method: method.toUpperCase(), path: `${prefix}${path}` });
        }
      }
    }
    return operations;
  }
}
