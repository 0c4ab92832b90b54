import type { Metadata } from 'next';

export const metadata: Metadata = { title: 'About' };

export default function AboutPage() {
  return (
    <>
      <h1>About</h1>
      <p>This page is a placeholder: the product it will describe is not specified yet.</p>
    </>
  );
}
