'use client';

import { useActionState } from 'react';

export type CheckResult = {
  /** When the page holding the form was rendered: carried by the action itself, encrypted. */
  previousCheck: string;
  checkedAt: string;
  deploymentId: string | null;
};

/** Asks the server again without reloading the page; any instance of the deployment may answer. */
export function CheckAgain({ check }: { check: () => Promise<CheckResult> }) {
  const [result, checkAction, isPending] = useActionState<CheckResult | undefined>(() => check(), undefined);
  return (
    <form action={checkAction} className="actions">
      <button type="submit" disabled={isPending}>
        Check again
      </button>
      <p role="status" data-testid="check-result">
        {result &&
          `Checked again at ${result.checkedAt} (deployment ${result.deploymentId ?? 'not set'}), after the check at ${result.previousCheck}.`}
      </p>
    </form>
  );
}
