/**
 * Which approval notifications to show and which to withdraw: a pure function of the calls
 * that wait, the notifications shown, and whether each call's card is on screen
 * (notifications.ts applies it). A notification goes when its call is decided anywhere, when
 * notifications are turned off, or when the call's card comes into view: the card is where the
 * call is decided, so its notification would only repeat it. A call whose card was seen that
 * way gets no notification again.
 */

export interface ToastState {
  /** The requests waiting for a decision. */
  waiting: ReadonlySet<string>;
  /** The requests with a notification on screen. */
  shown: ReadonlySet<string>;
  /** The requests whose notification was withdrawn because their card came into view. */
  seen: ReadonlySet<string>;
  /** Whether notifications are on (the extension's setting). */
  enabled: boolean;
}

export interface ToastPlan {
  /** Notifications to dismiss. */
  withdraw: string[];
  /** Requests to notify about. */
  show: string[];
  /** Requests whose card is in view now, with their notification withdrawn. */
  seen: string[];
}

/** What to do, given `state` and `onScreen` (whether a request's card is in view). */
export function planToasts(state: ToastState, onScreen: (request: string) => boolean): ToastPlan {
  const plan: ToastPlan = { withdraw: [], show: [], seen: [] };
  for (const request of state.shown) {
    if (!state.waiting.has(request) || !state.enabled) {
      plan.withdraw.push(request);
    } else if (onScreen(request)) {
      plan.withdraw.push(request);
      plan.seen.push(request);
    }
  }
  if (!state.enabled) {
    return plan;
  }
  for (const request of state.waiting) {
    const known = state.shown.has(request) || state.seen.has(request);
    if (!known && !plan.seen.includes(request) && !onScreen(request)) {
      plan.show.push(request);
    }
  }
  return plan;
}
