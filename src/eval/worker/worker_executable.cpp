// The kernelpro-worker program: worker_main.cpp's entry point as a plain executable.
extern "C" int kp_worker_main(int argc, char** argv);

int main(int argc, char** argv) { return kp_worker_main(argc, argv); }
