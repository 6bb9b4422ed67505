import { defineLifecycle } from '../../../platform/lifecycle.ts';

// The onboarding rules of the LMS as data: who may start, which form sections each persona has,
// and what must be filled in before a persona's onboarding can be submitted.

export const lmsPersonas = ['learner', 'instructor', 'staff'] as const;
export type LmsPersona = (typeof lmsPersonas)[number];

/**
 * A persona's onboarding, as data: started as a `draft` by the user (a persona that needs an invite
 * starts from an accepted one, or for an invited learner by staff), submitted to `completed` once every
 * required field is filled in (the missing ones are the refusal's details). Completed is final.
 */
export const onboardingLifecycle = defineLifecycle({
  subject: 'onboarding',
  statuses: ['draft', 'completed'],
  movers: ['user', 'staff'],
  moves: {
    start: { from: [null], to: 'draft', by: ['user', 'staff'] },
    submit: { from: ['draft'], to: 'completed', by: ['user'], guards: ['filled_in'] },
  },
  guards: {
    filled_in: (missing: string[]) =>
      missing.length
        ? {
            reason: 'Fill in every required field before submitting.',
            details: missing.map((field) => ({ field, issue: 'is required' })),
          }
        : undefined,
  },
});
export type OnboardingStatus = (typeof onboardingLifecycle.statuses)[number];

/** The saved form: the sections of the persona's payload, plus the form version they follow. */
export type OnboardingData = { schemaVersion: number } & Record<string, unknown>;

/** The form version a new draft follows. */
export const currentSchemaVersion = 1;

/** Personas anyone may start; the others need an accepted invite (invites come in a later issue). */
export const openToAll: Record<LmsPersona, boolean> = {
  learner: true,
  instructor: false,
  staff: false,
};

/** The top-level fields of each persona's payload (LearnerOnboardingPayload, ...). */
export const formSections: Record<LmsPersona, readonly string[]> = {
  learner: ['schemaVersion', 'personalDetails', 'contactInformation', 'residentialAddress'],
  instructor: ['schemaVersion', 'personalDetails', 'contactInformation', 'residentialAddress', 'bio', 'tradeIds'],
  staff: ['schemaVersion', 'personalDetails', 'contactInformation'],
};

const personalDetails = ['personalDetails.firstName', 'personalDetails.lastName', 'personalDetails.gender'];
const phoneNumber = ['contactInformation.phoneNumber.countryCode', 'contactInformation.phoneNumber.number'];
const residentialAddress = ['residentialAddress.country', 'residentialAddress.state', 'residentialAddress.lga'];

/** Fields that must be filled in (non-blank text, non-empty list) to submit, by form version and persona. */
export const requiredOnSubmit: Record<number, Record<LmsPersona, readonly string[]>> = {
  1: {
    learner: [...personalDetails, ...phoneNumber, ...residentialAddress],
    instructor: [...personalDetails, ...phoneNumber, ...residentialAddress, 'bio', 'tradeIds'],
    staff: [...personalDetails, ...phoneNumber],
  },
};

/** What a persona allows once its onboarding is completed (staff is a superset of instructor). */
const instructorCapabilities = ['course.create', 'course.content.edit', 'course.publish'];
export const capabilitiesOf: Record<LmsPersona, readonly string[]> = {
  learner: ['course.enroll'],
  instructor: instructorCapabilities,
  staff: instructorCapabilities,
};

/** The required fields of `data` (for its persona and version) that are still empty. */
export function missingFields(persona: LmsPersona, data: OnboardingData): string[] {
  const required = requiredOnSubmit[data.schemaVersion]![persona]; // save admits known versions only
  return required.filter((path) => !isFilled(valueAt(data, path)));
}

function valueAt(data: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined),
      data,
    );
}

function isFilled(value: unknown): boolean {
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  return value !== undefined && value !== null;
}
