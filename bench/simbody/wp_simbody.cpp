// wp_simbody.cpp - the double pendulum and the N-link spherical chain of
// mbsim's decks/double_pendulum.yaml and decks/chain.yaml built in Simbody
// (Debian's libsimbody-dev) and integrated to a given time with one of
// Simbody's integrators: the other side of the work-precision study of
// tools/wp_simbody.py (docs/results/wp_simbody.md, `make wp-simbody`).
// Never linked into mbsim.
//
//   wp_simbody MODEL INTEGRATOR (--accuracy A | --step H) [--n N] [--end T]
//              [--omega FILE]
//
// MODEL: double_pendulum or chain.  INTEGRATOR: rkm (RungeKuttaMerson), rkf
// (RungeKuttaFeldberg), rk3, rk2, verlet, cpodes (CPodes BDF, Newton),
// cpodes_adams (CPodes Adams, functional iteration), see2
// (SemiExplicitEuler2), euler (ExplicitEuler, error controlled), see
// (SemiExplicitEuler, fixed steps only).  --step H fixes the step of any of
// them.  --omega FILE: the initial angular velocity of each body, global
// frame, one "x y z" line per body (the tool script takes them from
// mbsim's t = 0 sample, after mbsim's mass-weighted projection of the
// deck's spins onto the joints); default rest.
//
// Each body's frame is mbsim's body frame, origin at the centroid, placed
// as the deck places it at t = 0; each joint's frames F (on the parent) and
// M (on the child) coincide at t = 0, so q = 0 (identity quaternions) is
// the deck's initial configuration.
//
// Prints one JSON object: the run's integrator, accuracy or step, steps
// taken and attempted, evaluations of the accelerations (realizations of
// Stage::Acceleration), the CPU time of the integration (process CPU
// clock, from initialize() to the end; building the system excluded), the
// centroid positions at the end and the centroid positions and velocities
// at the start (to check the initial state against mbsim's).
#include <Simbody.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace SimTK;

namespace {

// A body as the deck gives it: mass, principal inertia in the body frame,
// centroid and orientation (columns: body axes in the global frame) at t = 0.
struct BodyInit {
	double m;
	Vec3 J;
	Vec3 c;
	Mat33 A;
};

// F on the parent and M on the child, both at the global point p with the
// global orientation R_GJ at t = 0, so that the mobilizer's q = 0 is the
// initial configuration.
Transform joint_frame(const BodyInit *b, const Vec3 &p, const Mat33 &R_GJ)
{
	if (!b)		// ground
		return Transform(Rotation(R_GJ, true), p);
	Mat33 At = b->A.transpose();
	return Transform(Rotation(At * R_GJ, true), At * (p - b->c));
}

Body::Rigid rigid(const BodyInit &b)
{
	return Body::Rigid(MassProperties(b.m, Vec3(0), Inertia(b.J[0], b.J[1], b.J[2])));
}

// decks/double_pendulum.yaml: L = 2, w = 0.05, rho = 7800; bar 1 (2 L) from
// the origin along +y, bar 2 (L) from (0, 2 L, 0) down -z; pins about
// global x; gravity -9.81 z; at rest.
void build_double_pendulum(SimbodyMatterSubsystem &matter, std::vector<MobilizedBody> &mob,
			   std::vector<BodyInit> &init, Vec3 &g)
{
	const double L = 2, w = 0.05, rho = 7800;
	const double m1 = rho * 2 * L * w * w, m2 = rho * L * w * w;
	g = Vec3(0, 0, -9.81);
	BodyInit b1 = {m1, Vec3(m1 * w * w / 6, m1 * (w * w + 4 * L * L) / 12, m1 * (w * w + 4 * L * L) / 12),
		       Vec3(0, L, 0), Mat33(0, 0, 1, 1, 0, 0, 0, 1, 0)};
	BodyInit b2 = {m2, Vec3(m2 * w * w / 6, m2 * (w * w + L * L) / 12, m2 * (w * w + L * L) / 12),
		       Vec3(0, 2 * L, -L / 2), Mat33(0, 0, 1, 0, 1, 0, -1, 0, 0)};
	init = {b1, b2};
	// Simbody's pin turns about z of F and M: z along global x, x along y.
	const Mat33 R_GJ(0, 0, 1, 1, 0, 0, 0, 1, 0);
	MobilizedBody::Pin p1(matter.Ground(), joint_frame(nullptr, Vec3(0), R_GJ), rigid(b1),
			      joint_frame(&init[0], Vec3(0), R_GJ));
	MobilizedBody::Pin p2(p1, joint_frame(&init[0], Vec3(0, 2 * L, 0), R_GJ), rigid(b2),
			      joint_frame(&init[1], Vec3(0, 2 * L, 0), R_GJ));
	mob = {p1, p2};
}

// decks/chain.yaml: N bars of len = 2, w = 0.05, rho = 7800 hanging from the
// origin along -z (body x -> -z), spherical joints at the ends; gravity
// 9.81 (0.07169162, 0.68473815, 0.72525442) (the deck's unit vector).
void build_chain(SimbodyMatterSubsystem &matter, int N, std::vector<MobilizedBody> &mob,
		 std::vector<BodyInit> &init, Vec3 &g)
{
	const double len = 2, w = 0.05, rho = 7800, m = rho * len * w * w, gn = 9.81;
	g = gn * Vec3(0.07169162, 0.68473815, 0.72525442);
	const Mat33 A(0, 0, 1, 0, 1, 0, -1, 0, 0);
	init.clear();
	for (int i = 1; i <= N; i++)
		init.push_back({m, Vec3(m * w * w / 6, m * (w * w + len * len) / 12, m * (w * w + len * len) / 12),
				Vec3(0, 0, -(2 * i - 1) * len / 2), A});
	const Mat33 I(1);
	mob.clear();
	for (int i = 0; i < N; i++) {
		Vec3 p(0, 0, -i * len);
		MobilizedBody &parent = i ? mob[i - 1] : static_cast<MobilizedBody &>(matter.updGround());
		mob.push_back(MobilizedBody::Ball(parent, joint_frame(i ? &init[i - 1] : nullptr, p, I),
						  rigid(init[i]), joint_frame(&init[i], p, I)));
	}
}

Integrator *make_integrator(const std::string &name, MultibodySystem &sys, double step)
{
	if (name == "rkm")
		return new RungeKuttaMersonIntegrator(sys);
	if (name == "rkf")
		return new RungeKuttaFeldbergIntegrator(sys);
	if (name == "rk3")
		return new RungeKutta3Integrator(sys);
	if (name == "rk2")
		return new RungeKutta2Integrator(sys);
	if (name == "verlet")
		return new VerletIntegrator(sys);
	if (name == "cpodes")
		return new CPodesIntegrator(sys, CPodes::BDF, CPodes::Newton);
	if (name == "cpodes_adams")
		return new CPodesIntegrator(sys, CPodes::Adams, CPodes::Functional);
	if (name == "see2")
		return new SemiExplicitEuler2Integrator(sys);
	if (name == "euler")
		return new ExplicitEulerIntegrator(sys);
	if (name == "see" && step > 0)
		return new SemiExplicitEulerIntegrator(sys, step);
	return nullptr;
}

[[noreturn]] void usage(const char *msg)
{
	std::fprintf(stderr, "wp_simbody: %s\nusage: wp_simbody double_pendulum|chain "
		     "rkm|rkf|rk3|rk2|verlet|cpodes|cpodes_adams|see2|euler|see "
		     "(--accuracy A | --step H) [--n N] [--end T] [--omega FILE]\n", msg);
	std::exit(64);
}

double number(const char *s, const char *what)
{
	char *end;
	errno = 0;
	double v = std::strtod(s, &end);
	if (errno || end == s || *end || !(v > 0))
		usage((std::string("bad ") + what + " '" + s + "'").c_str());
	return v;
}

double cpu_seconds()
{
	timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

void print_vec3s(const char *key, const std::vector<Vec3> &v, bool last)
{
	std::printf("\"%s\": [", key);
	for (size_t i = 0; i < v.size(); i++)
		std::printf("%s[%.17g, %.17g, %.17g]", i ? ", " : "", v[i][0], v[i][1], v[i][2]);
	std::printf("]%s", last ? "" : ", ");
}

} // namespace

int main(int argc, char **argv)
{
	if (argc < 3)
		usage("model and integrator expected");
	std::string model = argv[1], iname = argv[2], omega_file;
	double accuracy = 0, step = 0, t_end = 2;
	int N = 32;
	for (int i = 3; i < argc; i++) {
		std::string a = argv[i];
		if (i + 1 >= argc)
			usage(("missing value after " + a).c_str());
		const char *v = argv[++i];
		if (a == "--accuracy")
			accuracy = number(v, "accuracy");
		else if (a == "--step")
			step = number(v, "step");
		else if (a == "--end")
			t_end = number(v, "end time");
		else if (a == "--n")
			N = (int)number(v, "N");
		else if (a == "--omega")
			omega_file = v;
		else
			usage(("unknown option " + a).c_str());
	}
	if ((accuracy > 0) == (step > 0))
		usage("give one of --accuracy and --step");

	MultibodySystem sys;
	SimbodyMatterSubsystem matter(sys);
	GeneralForceSubsystem forces(sys);
	std::vector<MobilizedBody> mob;
	std::vector<BodyInit> init;
	Vec3 g;
	if (model == "double_pendulum")
		build_double_pendulum(matter, mob, init, g);
	else if (model == "chain")
		build_chain(matter, N, mob, init, g);
	else
		usage(("unknown model " + model).c_str());
	Force::UniformGravity gravity(forces, matter, g);
	sys.realizeTopology();
	State s = sys.getDefaultState();

	// Initial angular velocities (global): a mobilizer's u gives the
	// angular velocity of M in F, expressed in F; F turns with the parent,
	// so that is w_child - w_parent in F's axes.
	if (!omega_file.empty()) {
		std::ifstream in(omega_file);
		std::vector<Vec3> w;
		double x, y, z;
		while (in >> x >> y >> z)
			w.push_back(Vec3(x, y, z));
		if (w.size() != mob.size())
			usage(("--omega: expected one line per body in " + omega_file).c_str());
		sys.realize(s, Stage::Position);
		std::vector<Vec3> u;
		for (size_t i = 0; i < mob.size(); i++) {
			Vec3 rel = w[i] - (i ? w[i - 1] : Vec3(0));
			Rotation R_GP = i ? mob[i - 1].getBodyRotation(s) : Rotation();
			u.push_back(~(R_GP * mob[i].getInboardFrame(s).R()) * rel);
		}
		for (size_t i = 0; i < mob.size(); i++) {
			sys.realize(s, Stage::Position);	// setting a u drops the stage
			mob[i].setUToFitAngularVelocity(s, u[i]);
		}
	}
	sys.realize(s, Stage::Velocity);
	std::vector<Vec3> c0, v0, w0, c1;
	for (auto &b : mob) {
		c0.push_back(b.getBodyOriginLocation(s));
		v0.push_back(b.getBodyOriginVelocity(s));
		w0.push_back(b.getBodyAngularVelocity(s));
	}

	std::unique_ptr<Integrator> integ(make_integrator(iname, sys, step));
	if (!integ)
		usage(("unknown integrator " + iname + (iname == "see" ? " (see needs --step)" : "")).c_str());
	if (accuracy > 0)
		integ->setAccuracy(accuracy);
	else if (iname != "see")
		integ->setFixedStepSize(step);
	integ->setFinalTime(t_end);
	double t0 = cpu_seconds();
	long evals0 = sys.getNumRealizationsOfThisStage(Stage::Acceleration);
	TimeStepper ts(sys, *integ);
	std::string failure;
	try {
		ts.initialize(s);
		ts.stepTo(t_end);
	} catch (const std::exception &ex) {
		// Simbody throws when an integrator gives up (step below its
		// minimum, CPodes' error test failures): report it as a run
		failure = ex.what();
	}
	double cpu = cpu_seconds() - t0;
	const State &e = integ->getState();
	bool ok = failure.empty() && std::fabs(e.getTime() - t_end) <= 1e-12 * t_end;
	if (ok) {	// a failed run's state may hold NaNs that realize() refuses
		sys.realize(e, Stage::Position);
		for (auto &b : mob)
			c1.push_back(b.getBodyOriginLocation(e));
	}

	std::printf("{\"model\": \"%s\", \"n\": %d, \"integrator\": \"%s\", \"method\": \"%s\", ", model.c_str(),
		    (int)mob.size(), iname.c_str(), integ->getMethodName());
	if (accuracy > 0)
		std::printf("\"accuracy\": %.17g, ", accuracy);
	else
		std::printf("\"step\": %.17g, ", step);
	if (!failure.empty()) {
		for (char &ch : failure)	// a JSON string on one line
			if (ch == '"' || ch == '\\' || (unsigned char)ch < 32)
				ch = ' ';
		std::printf("\"message\": \"%.300s\", ", failure.c_str());
	}
	std::printf("\"status\": \"%s\", \"t\": %.17g, \"steps\": %d, \"attempts\": %d, \"evaluations\": %ld, "
		    "\"cpu_time\": %.9g, ",
		    ok ? "complete" : "failed", e.getTime(), integ->getNumStepsTaken(), integ->getNumStepsAttempted(),
		    (long)(sys.getNumRealizationsOfThisStage(Stage::Acceleration) - evals0), cpu);
	print_vec3s("position", c1, false);
	print_vec3s("position0", c0, false);
	print_vec3s("velocity0", v0, false);
	print_vec3s("angular_velocity0", w0, true);
	std::printf("}\n");
	return ok ? 0 : 1;
}
