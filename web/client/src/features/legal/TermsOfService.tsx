//! legal: the Terms and Conditions (/terms), ten numbered sections, last updated August 11, 2025.

import { Link } from "react-router-dom";
import { LegalDocument, SupportEmailLink, type LegalSection } from "./LegalDocument";

const termsSections: readonly LegalSection[] = [
  {
    id: "acceptance",
    title: "Acceptance of These Terms",
    body: (
      <>
        <p>
          Papertide ("Papertide", "we", "us") is a service that watches PubMed, arXiv, bioRxiv and medRxiv
          for the research topics you choose and emails you a weekly digest of new papers, ranked for
          relevance and accompanied by AI-generated summaries (the "Service").
        </p>
        <p>
          By creating an account or otherwise using the Service you agree to these Terms and Conditions and
          to our <Link to="/privacy">Privacy Policy</Link>. If you do not agree, please do not use the
          Service.
        </p>
      </>
    ),
  },
  {
    id: "account",
    title: "Your Account",
    body: (
      <>
        <p>To use the Service you need an account. When you create one you agree to:</p>
        <ul>
          <li>give a valid email address that you control, and confirm it through the link we send you;</li>
          <li>keep your password confidential and not share your account with others;</li>
          <li>tell us promptly if you believe someone else has accessed your account.</li>
        </ul>
        <p>
          You are responsible for the activity on your account. You must be old enough to enter into a
          binding agreement in your country to use the Service.
        </p>
      </>
    ),
  },
  {
    id: "plans-and-billing",
    title: "Plans, Billing and Cancellation",
    body: (
      <>
        <p>The Service is offered on three plans:</p>
        <ul>
          <li>
            <strong>Free</strong>: one search term and your first two digests, drawn from PubMed. No credit
            card is required.
          </li>
          <li>
            <strong>Pro</strong>: $5 per month for up to five search terms, with weekly digests from all four
            sources.
          </li>
          <li>
            <strong>Team</strong>: $10 per month for up to ten search terms, with weekly digests from all four
            sources.
          </li>
        </ul>
        <p>
          Paid plans are billed monthly in advance, by card, through our payment provider. Your subscription
          renews automatically each month until you cancel. You can cancel at any time from your dashboard;
          cancelling stops future charges and returns your account to the free plan, which may first require
          you to reduce your search terms to the free plan's limit. Amounts already paid are not refunded
          except where the law requires it.
        </p>
        <p>
          If you need more than ten search terms, contact us. We will give you at least 30 days' notice by
          email before any change to the price of a plan you are subscribed to.
        </p>
      </>
    ),
  },
  {
    id: "ai-content",
    title: "AI-Generated Summaries and Research Content",
    body: (
      <>
        <p>
          Digests include summaries, relevance scores and expanded search terms produced automatically,
          partly with artificial intelligence. They may be incomplete, out of date or simply wrong, and a
          digest may miss papers that match your topics. Always read the original paper before you rely on,
          cite or act on its findings. Nothing in a digest is medical, legal or professional advice.
        </p>
        <p>
          The papers, abstracts and metadata we link to belong to their authors and publishers and remain
          subject to their licences. Papertide does not claim ownership of them, and a paper appearing in a
          digest is not an endorsement of it.
        </p>
      </>
    ),
  },
  {
    id: "acceptable-use",
    title: "Acceptable Use",
    body: (
      <>
        <p>When using the Service you agree not to:</p>
        <ul>
          <li>use it for anything unlawful, or to infringe the rights of others;</li>
          <li>create accounts in bulk, or for other people without their consent;</li>
          <li>scrape, resell or redistribute digests or the Service itself as a competing product;</li>
          <li>
            interfere with the Service, probe it for vulnerabilities without permission, or get around usage
            limits, rate limits or plan limits;
          </li>
          <li>use it to send unsolicited email or to harass anyone.</li>
        </ul>
      </>
    ),
  },
  {
    id: "self-hosted",
    title: "Self-Hosted Installations",
    body: (
      <p>
        Papertide can be installed and run by a lab, institution or individual on their own server. Such an
        installation is operated by that operator, not by us: the operator decides who may use it, which
        plans and features are enabled, how data is stored and for how long, and answers for its
        availability. If you use an installation run by someone else, your agreement for that installation
        is with its operator, and questions about it should go to them.
      </p>
    ),
  },
  {
    id: "liability",
    title: "Disclaimers and Limitation of Liability",
    body: (
      <>
        <p>
          The Service is provided "as is" and "as available". We do not promise that it will be
          uninterrupted or error-free, that every relevant paper will be found, or that digests will arrive
          at a particular time.
        </p>
        <p>
          To the fullest extent the law allows, Papertide is not liable for indirect, incidental or
          consequential damages, or for lost data, profits or opportunities, arising from your use of the
          Service. Our total liability for any claim is limited to the amount you paid us in the twelve
          months before the claim arose. Nothing in these terms limits liability that cannot be limited by
          law.
        </p>
      </>
    ),
  },
  {
    id: "termination",
    title: "Termination",
    body: (
      <p>
        You may stop using the Service and ask us to delete your account at any time. We may suspend or close
        an account that breaks these terms, puts the Service or other users at risk, or has to be closed by
        law; where reasonable we will tell you first and give you a chance to put things right. When an
        account is closed, access to digests ends, and any paid subscription is cancelled with no further
        charges.
      </p>
    ),
  },
  {
    id: "changes",
    title: "Changes to These Terms",
    body: (
      <p>
        We may update these terms as the Service changes. The date at the top of this page shows when they
        were last revised. For significant changes we will notify you by email before they take effect.
        Continuing to use the Service after a change takes effect means you accept the updated terms.
      </p>
    ),
  },
  {
    id: "contact",
    title: "Contact Us",
    body: (
      <p>
        Questions about these terms, your plan or your account are welcome at <SupportEmailLink />.
      </p>
    ),
  },
];

export function TermsOfService() {
  return (
    <LegalDocument
      title="Terms and Conditions"
      intro={
        <p>
          Please read these terms carefully. They explain what Papertide provides, what we expect from you,
          and the conditions of paid plans.
        </p>
      }
      sections={termsSections}
      closing={<p>© 2025 Papertide. All rights reserved.</p>}
    />
  );
}
