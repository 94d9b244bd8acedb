// Placeholder until the page is built (auth).
export function ResetPasswordPage() {
  return <main><h1>ResetPasswordPage</h1></main>;
}
