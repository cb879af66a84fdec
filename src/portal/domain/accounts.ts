import { passwordProblem } from '../../identity/domain/passwords.ts';
import { validEmail } from '../../identity/domain/users.ts';

/** The sign-up form's first problem, in the words the form shows; undefined when it may be sent. */
export function signUpProblem(input: { email: string; name: string; password: string }): string | undefined {
  if (!validEmail(input.email)) return 'Email: enter an email address such as name@example.com.';
  if (!input.name || input.name.length > 100) return 'Name: enter 1 to 100 characters.';
  const problem = passwordProblem(input.password);
  return problem ? `Password: ${problem}.` : undefined;
}
