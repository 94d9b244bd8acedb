//! legal: the Privacy Policy (/privacy), eleven numbered sections including the GDPR and CCPA
//! rights, last updated August 11, 2025.

import { Link } from "react-router-dom";
import { LegalDocument, SupportEmailLink, type LegalSection } from "./LegalDocument";

const privacySections: readonly LegalSection[] = [
  {
    id: "introduction",
    title: "Introduction",
    body: (
      <>
        <p>
          This policy explains what personal information Papertide collects when you use the service, why,
          how long we keep it and the choices you have. It applies together with our{" "}
          <Link to="/terms">Terms and Conditions</Link>.
        </p>
        <p>
          Papertide can also be run by a lab or institution on its own server. On such an installation, the
          operator decides how your information is handled and is responsible for it; please ask them about
          their practices.
        </p>
      </>
    ),
  },
  {
    id: "information-we-collect",
    title: "Information We Collect",
    body: (
      <>
        <p>We collect only what we need to run the service:</p>
        <ul>
          <li>
            <strong>Account details</strong>: your email address, your password (stored only as a secure hash)
            and, if you choose to give it, your research field.
          </li>
          <li>
            <strong>Search terms</strong>: the research topics you add, and your digest preferences such as
            sources and delivery day.
          </li>
          <li>
            <strong>IP address at signup</strong>: recorded when you create your account, to prevent abuse of
            the free plan.
          </li>
          <li>
            <strong>Digests sent</strong>: which digests we emailed you, when, and the papers they contained,
            so you can revisit them and so we do not send the same paper twice.
          </li>
          <li>
            <strong>Billing records</strong> (paid plans only): your plan, subscription status and the
            reference our payment provider gives us. We never receive or store your card number.
          </li>
        </ul>
      </>
    ),
  },
  {
    id: "how-we-use-information",
    title: "How We Use and Share Your Information",
    body: (
      <>
        <p>
          We use your information to find papers matching your search terms, build and send your digests,
          manage your account and plan, keep the service secure, and answer your questions. If you allow
          analytics cookies, we also use aggregated usage data to improve the service.
        </p>
        <p>
          To expand search terms and write summaries, your search terms and the abstracts of matching papers
          may be processed by an AI model. Where that model is run by an outside provider, it receives those
          texts only, never your email address.
        </p>
        <p>
          We share information only with the providers that help us run the service (email delivery,
          payment processing and, if configured, an AI provider), only for that purpose, or when the law
          requires it. We do not sell your personal information.
        </p>
      </>
    ),
  },
  {
    id: "cookies",
    title: "Cookies",
    body: (
      <>
        <p>We use two kinds of cookies:</p>
        <ul>
          <li>
            <strong>Essential cookies</strong>: a session cookie that keeps you signed in. The service cannot
            work without it, so it is always on.
          </li>
          <li>
            <strong>Analytics cookies</strong>: set only if you accept them in the cookie banner. They tell us
            which pages are used so we can improve them.
          </li>
        </ul>
        <p>
          Your choice is stored in your browser. You can change it at any time through Cookie Settings at
          the bottom of every page; withdrawing consent turns analytics off and removes its cookies.
        </p>
      </>
    ),
  },
  {
    id: "email",
    title: "Email Communications",
    body: (
      <p>
        We email you to verify your address, to reset your password when you ask, to deliver your digests,
        and about important changes to your account or these policies. Every digest contains an unsubscribe
        link, and you can change your digest preferences from your dashboard. We never give your email
        address to others for their marketing.
      </p>
    ),
  },
  {
    id: "payments",
    title: "Payment Processing",
    body: (
      <p>
        Payments for paid plans are handled by our payment provider. You enter your card details directly
        with the provider, which processes them under its own privacy policy and security standards. We
        receive only what we need to manage your subscription: a customer reference, the subscription and
        invoice status, and the amounts paid.
      </p>
    ),
  },
  {
    id: "retention",
    title: "Data Retention",
    body: (
      <p>
        We keep your account details, search terms and digest history for as long as your account exists.
        When you delete your account, or ask us to, we delete this information within 30 days, except
        records we must keep longer by law, such as invoices for tax purposes.
      </p>
    ),
  },
  {
    id: "security",
    title: "Data Security",
    body: (
      <>
        <p>We protect your information with measures appropriate to its sensitivity, including:</p>
        <ul>
          <li>passwords stored only as salted hashes with a modern algorithm, never in readable form;</li>
          <li>random, expiring, single-use links for email verification and password resets;</li>
          <li>encrypted connections (HTTPS) and session cookies that scripts cannot read;</li>
          <li>each account can reach only its own data.</li>
        </ul>
        <p>No system is perfectly secure. If a breach affects your information, we will tell you as the law requires.</p>
      </>
    ),
  },
  {
    id: "gdpr",
    title: "Your Rights Under the GDPR",
    body: (
      <>
        <p>
          If you are in the European Economic Area, the United Kingdom or Switzerland, the General Data
          Protection Regulation (GDPR) or its local equivalent gives you the right to:
        </p>
        <ul>
          <li><strong>Access</strong> the personal data we hold about you and receive a copy;</li>
          <li><strong>Rectification</strong>: have inaccurate or incomplete data corrected;</li>
          <li><strong>Erasure</strong>: have your data deleted;</li>
          <li><strong>Portability</strong>: receive your data in a structured, machine-readable format;</li>
          <li><strong>Objection</strong>: object to processing based on our legitimate interests;</li>
          <li><strong>Restriction</strong>: ask us to limit how we process your data;</li>
          <li>
            <strong>Complaint</strong>: lodge a complaint with your local data protection supervisory
            authority.
          </li>
        </ul>
        <p>
          We process your data to provide the service you signed up for (performance of a contract), to keep
          it secure and prevent abuse (legitimate interests), and, for analytics cookies, with your consent,
          which you can withdraw at any time. We answer requests within one month.
        </p>
      </>
    ),
  },
  {
    id: "ccpa",
    title: "Your Rights Under the CCPA",
    body: (
      <>
        <p>If you are a California resident, the California Consumer Privacy Act (CCPA) gives you the right to:</p>
        <ul>
          <li>
            <strong>Know</strong> what personal information we collect, use and disclose, and why;
          </li>
          <li>
            <strong>Delete</strong> the personal information we hold about you, subject to legal exceptions;
          </li>
          <li>
            <strong>Opt out of the sale</strong> of your personal information. Papertide does not sell
            personal information, and does not share it for targeted advertising;
          </li>
          <li>
            <strong>Non-discrimination</strong>: we will not deny you the service, charge you a different price
            or give you a lower quality of service for exercising these rights.
          </li>
        </ul>
      </>
    ),
  },
  {
    id: "contact",
    title: "Changes and Contact",
    body: (
      <>
        <p>
          We may update this policy as the service changes; the date at the top shows the latest revision,
          and we will email you before significant changes take effect.
        </p>
        <p>
          To exercise any of your rights, or for any question about your privacy, write to{" "}
          <SupportEmailLink />. We may need to confirm your identity before acting on a request.
        </p>
      </>
    ),
  },
];

export function PrivacyPolicy() {
  return (
    <LegalDocument
      title="Privacy Policy"
      intro={
        <p>
          Your research interests are your business. This policy describes the small amount of personal
          information Papertide needs, and how we look after it.
        </p>
      }
      sections={privacySections}
      closing={<p>© 2025 Papertide. All rights reserved.</p>}
    />
  );
}
