import { status } from '@grpc/grpc-js';
import { GrpcCallError } from '../../../platform/grpc/errors.ts';
import { unprocessable } from '../../../platform/http/errors.ts';
import { valueAt, type JsonObject } from '../../../platform/http/merge-patch.ts';
import type { OnboardingService } from '../onboarding/service.ts';
import { personSection } from '../onboarding/rules.ts';
import {
  upstreamFailure,
  type IdentityClient,
  type VerifyIdentityResponse,
} from '../../../contracts/orchestrator-client.ts';
import type { CapUserRecord } from '../models.ts';
import type { UserService } from '../service.ts';

/** The person details a check needs, by their name in `personalDetails`. */
const needed = ['firstName', 'lastName', 'dob'] as const;
type Person = Record<(typeof needed)[number], string>;

const filled = (details: JsonObject | undefined, field: string) => {
  const value = details?.[field];
  return typeof value === 'string' && value.trim() !== '';
};

/**
 * POST /identity-verification: checks the caller's identity document with the Orchestrator's
 * VerifyIdentity, synchronously, against the name and date of birth CAP holds for them.
 */
export function createIdentityService(users: UserService, onboarding: OnboardingService, orchestrator: IdentityClient) {
  /**
   * The details to check against: the profile's `personalDetails` if complete, else the first complete
   * ones among the onboarding drafts, newest first (the candidate wizard verifies before submitting,
   * when only the draft has them). Places are never mixed.
   */
  async function personOf(user: CapUserRecord): Promise<Person> {
    const places: Array<JsonObject | undefined> = [user.profile.personalDetails as JsonObject | undefined];
    const drafts = await onboarding.models.Onboarding.findAll({
      where: { userId: user.userId },
      order: [['updatedAt', 'DESC']],
    });
    for (const draft of drafts) {
      const section = personSection[draft.persona];
      if (section === null) continue;
      places.push(
        valueAt(draft.data, section ? `${section}.personalDetails` : 'personalDetails') as JsonObject | undefined,
      );
    }
    const complete = places.find((details) => needed.every((field) => filled(details, field)));
    if (complete) return Object.fromEntries(needed.map((field) => [field, String(complete[field]).trim()])) as Person;
    // Name what is missing from the best place there is: the first one holding any details.
    const partial = places.find((details) => details && needed.some((field) => filled(details, field)));
    const missing = needed.filter((field) => !filled(partial, field));
    throw unprocessable(
      'identity.details_missing',
      'Add your first name, last name and date of birth to your profile (or your onboarding) before verifying your identity.',
      missing.map((field) => ({ field: `personalDetails.${field}`, issue: 'is required' })),
    );
  }

  return {
    async verify(user: CapUserRecord, document: { type: string; identificationNumber: string }) {
      const person = await personOf(user);
      let answer: VerifyIdentityResponse;
      try {
        answer = await orchestrator.verifyIdentity({
          user_id: user.userId,
          type: document.type,
          identification_number: document.identificationNumber,
          first_name: person.firstName,
          last_name: person.lastName,
          date_of_birth: person.dob,
        });
      } catch (err) {
        // Retrying cannot help when the details themselves are refused (a name too long, a birth date in the future).
        if (err instanceof GrpcCallError && err.code === status.INVALID_ARGUMENT) {
          throw unprocessable(
            'identity.details_invalid',
            `The identity service refused your details (${err.details}): correct your profile and try again.`,
          );
        }
        upstreamFailure(
          err,
          { unavailable: 'identity.provider_unavailable', failed: 'identity.upstream_error' },
          'Identity verification',
        );
      }
      const verifiedAt = answer.verified && answer.verified_at ? new Date(answer.verified_at) : null;
      await users.recordIdentityCheck(user.userId, {
        provider: answer.provider,
        providerReference: answer.provider_reference,
        verifiedAt,
      });
      // The web client decides by the HTTP status alone, so a check that did not verify is an error.
      if (!verifiedAt) throw notVerified(answer.outcome);
      return { verified: true, verifiedAt: verifiedAt.toISOString(), provider: answer.provider };
    },
  };
}

/** A check that did not verify: its outcome as the detail, in words a person can act on as the message. */
function notVerified(outcome: string) {
  const detail = [{ field: 'identificationNumber', issue: outcome }];
  if (outcome === 'not_found') {
    return unprocessable(
      'identity.not_found',
      'The identity register does not know this number: check it and try again.',
      detail,
    );
  }
  const what = { name_mismatch: 'name', dob_mismatch: 'date of birth' }[outcome] ?? 'name or date of birth';
  return unprocessable(
    'identity.not_verified',
    `The identity register holds this number under another ${what}: check the number and the ${what} in your details, then try again.`,
    detail,
  );
}

export type IdentityService = ReturnType<typeof createIdentityService>;
