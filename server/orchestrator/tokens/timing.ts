// A constant of its own module, so that capctl's help can show it without loading the key code.
/** A running server rereads its keys this often, so `capctl keys rotate` on its database reaches it without a restart. */
export const keyReloadSeconds = 30;
