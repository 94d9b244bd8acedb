// Placeholder until the page is built (auth).
export function VerifyEmailPage() {
  return <main><h1>VerifyEmailPage</h1></main>;
}
