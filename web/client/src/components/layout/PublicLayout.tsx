// Placeholder until the layout is built (landing).
import type { ReactNode } from "react";
export function PublicLayout({ children }: { children: ReactNode; footerVariant?: "dark" | "light" }) {
  return <>{children}</>;
}
