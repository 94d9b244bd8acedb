// The frame of every public page: header, the page, footer. Pages bring their own <main>.
import type { ReactNode } from "react";
import { Footer, type FooterVariant } from "./Footer";
import { Header } from "./Header";

export function PublicLayout({ children, footerVariant = "dark" }: { children: ReactNode; footerVariant?: FooterVariant }) {
  return (
    <div className="flex min-h-screen flex-col bg-slate-50">
      <Header />
      <div className="flex flex-1 flex-col">{children}</div>
      <Footer variant={footerVariant} />
    </div>
  );
}
