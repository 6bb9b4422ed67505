/**
 * JMESPath queries (the JMESPath Community library) for captures and expectations that a dotted path
 * cannot express: an array item by a field's value, counts, projections.
 */
import { compile, search, type JSONValue } from '@jmespath-community/jmespath';

/** Why a query does not parse, or undefined when it does. */
export function queryProblem(expression: string): string | undefined {
  try {
    compile(expression);
    return undefined;
  } catch (err) {
    return `JMESPath: ${(err as Error).message}`;
  }
}

/** The query's result; JMESPath's null (nothing found) is returned as undefined, i.e. absent. */
export function query(value: unknown, expression: string): unknown {
  const result = search((value ?? null) as JSONValue, expression);
  return result === null ? undefined : result;
}
