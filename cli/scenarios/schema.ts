/**
 * JSON Schema (2020-12) of a scenario file: the structure only. Rules that need the whole file (unique step
 * ids, references between steps, expressions) live in validate.ts. `hint` is an annotation that replaces
 * Ajv's message when a value does not match.
 */
import { durationPattern } from './duration.ts';

export const matcherKeywords = ['type', 'regex', 'present', 'length', 'minLength', 'equals', 'some'] as const;
export const matcherTypes = ['string', 'number', 'boolean', 'array', 'object', 'null'] as const;

const duration = { type: 'string', pattern: durationPattern, hint: 'must be a duration such as 500ms, 2s or 1m' };
const identifier = {
  type: 'string',
  pattern: '^[A-Za-z][A-Za-z0-9_-]*$',
  hint: 'must start with a letter and use only letters, digits, _ and -',
};
const stringMap = (values: object) => ({ type: 'object', additionalProperties: values });

export const scenarioSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://cap-platform.example/schemas/scenario.json',
  title: 'capctl scenario',
  type: 'object',
  hint: 'a scenario file must be a mapping with name and steps',
  additionalProperties: false,
  required: ['name', 'steps'],
  properties: {
    name: { type: 'string', minLength: 1 },
    description: { type: 'string' },
    vars: { type: 'object', propertyNames: identifier },
    actors: { type: 'object', propertyNames: identifier, additionalProperties: { $ref: '#/$defs/actor' } },
    groups: { type: 'object', propertyNames: identifier, additionalProperties: { $ref: '#/$defs/group' } },
    rows: {
      anyOf: [
        { type: 'string', pattern: '\\.(csv|ya?ml|json)$' },
        { type: 'array', items: { type: 'object' } },
      ],
      hint: 'must be a list of mappings, or a .csv, .yaml or .json file of them',
    },
    steps: { type: 'array', minItems: 1, items: { $ref: '#/$defs/step' }, hint: 'must be a list of at least one step' },
  },
  $defs: {
    group: {
      type: 'object',
      additionalProperties: false,
      required: ['steps'],
      properties: {
        description: { type: 'string' },
        params: { type: 'array', items: identifier, uniqueItems: true },
        steps: {
          type: 'array',
          minItems: 1,
          items: { $ref: '#/$defs/step' },
          hint: 'must be a list of at least one step',
        },
      },
    },
    actor: {
      type: 'object',
      additionalProperties: false,
      required: ['email', 'password'],
      properties: {
        email: { type: 'string' },
        password: { type: 'string' },
        persona: { type: 'string' },
        centre: { type: 'string' },
      },
    },
    step: {
      type: 'object',
      additionalProperties: false,
      required: ['id'],
      properties: {
        id: identifier,
        name: { type: 'string' },
        as: { type: 'string' },
        http: { $ref: '#/$defs/http' },
        grpc: { $ref: '#/$defs/grpc' },
        mail: { $ref: '#/$defs/mail' },
        event: { $ref: '#/$defs/event' },
        wait: duration,
        expect: { $ref: '#/$defs/expectation' },
        capture: {
          type: 'object',
          propertyNames: identifier,
          additionalProperties: {
            anyOf: [
              { type: 'string' },
              {
                type: 'object',
                additionalProperties: false,
                required: ['jmespath'],
                properties: { jmespath: { type: 'string' } },
              },
            ],
            hint: 'must be a path into the response (body.data.id) or {jmespath: <query>}',
          },
        },
        retry: { $ref: '#/$defs/retry' },
        continueOnFail: { type: 'boolean' },
        use: identifier,
        with: { type: 'object', propertyNames: identifier },
      },
      oneOf: [
        { required: ['http'] },
        { required: ['grpc'] },
        { required: ['mail'] },
        { required: ['event'] },
        { required: ['wait'] },
        { required: ['use'] },
      ],
      oneOfHint: {
        none: 'a step needs one action: http, grpc, mail, event or wait (or use: a group)',
        many: 'a step has only one action; choose one of http, grpc, mail, event, wait or use',
      },
    },
    http: {
      type: 'object',
      additionalProperties: false,
      properties: {
        operation: {
          type: 'string',
          pattern: '^(ol|cap|lms)\\.[A-Za-z0-9_]+$',
          hint: 'must be <service>.<operationId>, service ol, cap or lms (e.g. cap.getMe)',
        },
        method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] },
        path: {
          type: 'string',
          pattern: '^/v1/(ol|cap|lms)(/|\\?|$)',
          hint: 'must start with a service prefix: /v1/ol, /v1/cap or /v1/lms',
        },
        params: stringMap({ type: ['string', 'number', 'boolean'] }),
        query: stringMap({ type: ['string', 'number', 'boolean', 'array', 'null'] }),
        headers: stringMap({ type: ['string', 'number', 'null'] }),
        body: {},
        upload: {
          type: 'object',
          additionalProperties: false,
          required: ['file'],
          properties: {
            file: { type: 'string', minLength: 1 },
            fields: stringMap({ type: ['string', 'number', 'boolean'] }),
          },
        },
      },
      not: { required: ['body', 'upload'] },
    },
    grpc: {
      type: 'object',
      additionalProperties: false,
      required: ['method'],
      properties: {
        method: {
          type: 'string',
          pattern: '^/?[A-Za-z][\\w.]*[./][A-Za-z]\\w*$',
          hint: 'must be Service.Method (e.g. IdentityService.ProvisionAccount)',
        },
        request: { type: 'object' },
        address: { type: 'string' },
      },
    },
    mail: {
      type: 'object',
      additionalProperties: false,
      required: ['to'],
      properties: { to: { type: 'string' }, wait: duration, since: { type: 'string' } },
    },
    event: {
      type: 'object',
      additionalProperties: false,
      required: ['service', 'type'],
      properties: {
        service: { enum: ['ol', 'cap', 'lms'], hint: 'must be the service that publishes the event: ol, cap or lms' },
        type: {
          type: 'string',
          pattern: '^[a-z]+(\\.[a-z_]+)+$',
          hint: 'must be an event type such as payment.completed',
        },
        where: { type: 'object' },
        wait: duration,
        since: { type: 'string' },
      },
    },
    expectation: {
      type: 'object',
      additionalProperties: false,
      properties: {
        status: {
          anyOf: [
            { type: 'integer', minimum: 0, maximum: 599 },
            { type: 'array', minItems: 1, items: { type: 'integer', minimum: 0, maximum: 599 } },
          ],
          hint: 'must be a status code or a list of status codes',
        },
        code: { type: 'string' },
        headers: { type: 'object', additionalProperties: { $ref: '#/$defs/matcher' } },
        body: { type: 'object', additionalProperties: { $ref: '#/$defs/matcher' } },
        jmespath: { type: 'object', additionalProperties: { $ref: '#/$defs/matcher' } },
        maxDuration: duration,
        schema: { type: 'boolean' },
      },
    },
    // An object with any matcher keyword is a matcher and may hold only matcher keywords; any other
    // value is compared for equality.
    matcher: {
      if: { type: 'object', anyOf: matcherKeywords.map((keyword) => ({ required: [keyword] })) },
      then: {
        additionalProperties: false,
        properties: {
          type: { enum: matcherTypes },
          regex: { type: 'string' },
          present: { type: 'boolean' },
          length: { type: 'integer', minimum: 0 },
          minLength: { type: 'integer', minimum: 0 },
          equals: {},
          // An array with an item whose paths match, as `expect.body` matches a body.
          some: { type: 'object', minProperties: 1, additionalProperties: { $ref: '#/$defs/matcher' } },
        },
      },
    },
    retry: {
      type: 'object',
      additionalProperties: false,
      required: ['until', 'times'],
      properties: {
        until: { $ref: '#/$defs/expectation' },
        times: { type: 'integer', minimum: 1, maximum: 100 },
        interval: duration,
      },
    },
  },
} as const;
