"""One parser per artifact of torch's output: the wrapper's call(), C++ and Triton kernels, loads, graph breaks."""
