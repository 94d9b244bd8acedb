// Placeholder until the page is built (content).
export function BlogPostPage() {
  return <main><h1>BlogPostPage</h1></main>;
}
