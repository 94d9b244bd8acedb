// Placeholder until consent is built (landing).
export function PageViewReporter() {
  return null;
}
