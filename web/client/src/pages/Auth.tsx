// Placeholder until the page is built (auth).
export function AuthPage() {
  return <main><h1>AuthPage</h1></main>;
}
