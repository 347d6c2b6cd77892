/* xdmf_contact.h - the contacts' part of FILE.xdmf (xdmf.h), used by
 * xdmf.c only: /contacts of the output file read whole, written to the
 * sidecar FILE.xdmf.h5 for the exported samples and drawn as a second
 * temporal collection, "contacts", beside "bodies" (man mbsim-export(1)). */
#ifndef MBSIM_XDMF_CONTACT_H
#define MBSIM_XDMF_CONTACT_H

#include <hdf5.h>
#include <stdio.h>

struct h5in;

struct xdmf_contacts {
	int present;		/* the file has /contacts */
	int impulse;		/* nonsmooth model: impulses (N s), not forces */
	long *off;		/* ns + 1: sample k's rows are off[k] .. off[k+1]-1 */
	/* per row: point (3, m), normal force or impulse as a vector along
	 * the normal (3), friction force or impulse (3), gap (1, m),
	 * sliding (1) */
	double *v[5];
};

/* /contacts of f (ns samples) into c: 0 (c->present 0 when the file has
 * none), or -1 with a message in err (counts and rows that disagree). */
int xdmf_contacts_read(struct h5in *f, long ns, struct xdmf_contacts *c, char *err, size_t n);
void xdmf_contacts_release(struct xdmf_contacts *c);

/* The contacts of samples 0, every, ..., (nk - 1) every (0 without
 * /contacts). */
long xdmf_contacts_rows(const struct xdmf_contacts *c, long every, long nk);

/* /contacts/{point, normal_force, friction_force, gap, sliding} of the
 * sidecar f: the rows of samples 0, every, ..., (nk - 1) every.  0 or -1. */
int xdmf_contacts_write(hid_t f, const struct xdmf_contacts *c, long every, long nk);

/* The "contacts" collection of FILE.xdmf (dat: the sidecar's name as the
 * .xdmf names it; t: /time). */
void xdmf_contacts_xml(FILE *f, const char *dat, const struct xdmf_contacts *c, const double *t,
		       long every, long nk);

/* s with the five XML specials escaped (xdmf.c) */
void xdmf_xml_str(FILE *f, const char *s);

#endif
