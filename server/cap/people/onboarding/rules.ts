import type { Persona } from '../vocabulary.ts';

/**
 * Who may start an onboarding on their own. An awarding body is an organisation the platform admins
 * register, and its people join by invitation (awarding body staff invite, a later issue): a
 * self-started awarding_body onboarding would make anyone an awarding body.
 */
export const selfStartable: Record<Persona, boolean> = {
  candidate: true,
  centre: true,
  assessor: true,
  awarding_body: false,
};

export const personalDetailsFields = ['firstName', 'lastName', 'dob', 'gender', 'nationality'];
export const contactInformationFields = ['emailAddress', 'phoneNumber.countryCode', 'phoneNumber.number'];
export const addressFields = ['country', 'state', 'address'];
export const under = (prefix: string, fields: string[]) => fields.map((field) => `${prefix}.${field}`);

/**
 * The fields a draft must have before submit, by dotted path: what the real client always sends on
 * the way to submit. Optional parts of the shapes (middleName, lga, logoAssetId, nameOfAccount,
 * accessibility, assessorDetails...) are not required.
 */
export const requiredOnSubmit: Record<Persona, string[]> = {
  candidate: [
    ...under('personalDetails', personalDetailsFields),
    ...under('contactInformation', contactInformationFields),
    ...under('residentialAddress', addressFields),
  ],
  centre: [
    'centre.centreInformation.name',
    'centre.centreInformation.registrationNo',
    ...under('centre.centreResidentialAddress', addressFields),
    ...under('centre.centreSupportInformation', contactInformationFields),
    'centre.centreAccountDetails.bank',
    'centre.centreAccountDetails.accountNo',
    ...under('owner.personalDetails', personalDetailsFields),
    ...under('owner.contactInformation', contactInformationFields),
    ...under('owner.residentialAddress', addressFields),
  ],
  assessor: [
    ...under('personalDetails', personalDetailsFields),
    ...under('contactInformation', contactInformationFields),
    ...under('residentialAddress', addressFields),
  ],
  awarding_body: [], // never started by its user (see selfStartable)
};

/** Where a draft keeps the person's own details, copied into an empty profile on submit ('' = the draft root). */
export const personSection: Record<Persona, string | null> = {
  candidate: '',
  centre: 'owner',
  assessor: '',
  awarding_body: null,
};
