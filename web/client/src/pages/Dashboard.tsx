// Placeholder until the page is built (landing).
export function DashboardPage() {
  return <main><h1>DashboardPage</h1></main>;
}
