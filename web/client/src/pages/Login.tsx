// Placeholder until the page is built (auth).
export function LoginPage() {
  return <main><h1>LoginPage</h1></main>;
}
