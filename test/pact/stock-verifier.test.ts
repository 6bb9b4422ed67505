import test from 'ava';
import { testEveryPactWithStockVerifier } from '../helpers/pact-verifier.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

// The Pact CLI's pact-verifier, run as a downstream team runs it, verifies every pact file in pacts/
// against a freshly started platform: HTTP and message interactions alike.

let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

testEveryPactWithStockVerifier('on a fresh platform', () => platform.urls.gateway!);
