/** Where the follow page lives (decisions §5 and §6: every lifecycle answer redirects here). */
export const FOLLOW_PATH = '/patients/follow';
