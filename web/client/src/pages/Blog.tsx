// Placeholder until the page is built (content).
export function BlogPage() {
  return <main><h1>BlogPage</h1></main>;
}
