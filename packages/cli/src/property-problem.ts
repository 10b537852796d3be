/** A configuration problem as `path: message`, unless the message names the property already. */
export function withPath(problem: { path: string; message: string }): string {
  return problem.path && !problem.message.includes(`\`${problem.path}\``)
    ? `${problem.path}: ${problem.message}`
    : problem.message;
}
