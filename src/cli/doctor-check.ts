/** One line of `plaited-agent doctor`: what was checked, how it went, and the fix when it failed. */
export interface DoctorCheck {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
}

export function doctorLine(check: DoctorCheck): string {
  return `${check.ok ? '✓' : '✗'} ${check.name}: ${check.detail}${!check.ok && check.fix ? ` — fix: ${check.fix}` : ''}`;
}
