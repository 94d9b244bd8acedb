// Placeholder until the page is built (auth).
export function SignupPage() {
  return <main><h1>SignupPage</h1></main>;
}
