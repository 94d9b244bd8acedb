// Every route of spec §2. Page files are thin; their features live in src/features/.
// routes.json lists the same paths for the server, which answers 404 for any other: a test checks
// that this table and that file agree.
import type { ReactElement } from "react";
import { Route, Routes } from "react-router-dom";
import { AdminPage } from "@/pages/Admin";
import { AuthPage } from "@/pages/Auth";
import { BlogPage } from "@/pages/Blog";
import { BlogPostPage } from "@/pages/BlogPost";
import { CheckoutPage } from "@/pages/Checkout";
import { DashboardPage } from "@/pages/Dashboard";
import { DebugSubscriptionPage } from "@/pages/DebugSubscription";
import { FinalizingSubscriptionPage } from "@/pages/FinalizingSubscription";
import { LandingPage } from "@/pages/Landing";
import { LoginPage } from "@/pages/Login";
import { NotFoundPage } from "@/pages/NotFound";
import { PaymentPage } from "@/pages/Payment";
import { PaymentSuccessPage } from "@/pages/PaymentSuccess";
import { PrivacyPage } from "@/pages/Privacy";
import { RatePage } from "@/pages/Rate";
import { ResetPasswordPage } from "@/pages/ResetPassword";
import { SignupPage } from "@/pages/Signup";
import { SubscribePage } from "@/pages/Subscribe";
import { TermsPage } from "@/pages/Terms";
import { TestEmailPage } from "@/pages/TestEmail";
import { UnsubscribePage } from "@/pages/Unsubscribe";
import { VerifyEmailPage } from "@/pages/VerifyEmail";
import { PageViewReporter } from "@/features/consent/PageViewReporter";

/**
 * Each route pattern the client serves (React Router syntax) and its page; anything else is 404,
 * /subscribe/fix-payment included (spec §2: referenced, never registered).
 */
export const ROUTES: Readonly<Record<string, ReactElement>> = {
  "/": <LandingPage />,
  "/auth": <AuthPage />,
  "/login": <LoginPage />,
  "/signup": <SignupPage />,
  "/verify-email": <VerifyEmailPage />,
  "/reset-password": <ResetPasswordPage />,
  "/dashboard": <DashboardPage />,
  "/subscribe": <SubscribePage />,
  "/checkout": <CheckoutPage />,
  "/payment": <PaymentPage />,
  "/payment-success": <PaymentSuccessPage />,
  "/finalizing-subscription": <FinalizingSubscriptionPage />,
  "/debug-subscription": <DebugSubscriptionPage />,
  "/test-email": <TestEmailPage />,
  "/unsubscribe": <UnsubscribePage />,
  "/rate": <RatePage />,
  "/terms": <TermsPage />,
  "/privacy": <PrivacyPage />,
  "/blog": <BlogPage />,
  "/blog/:id": <BlogPostPage />,
  "/admin": <AdminPage />,
};

export function AppRoutes() {
  return (
    <>
      <PageViewReporter />
      <Routes>
        {Object.entries(ROUTES).map(([path, page]) => (
          <Route key={path} path={path} element={page} />
        ))}
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </>
  );
}
