# cudnn.library_damaged (error)
Reinstall cuDNN of this copy:
Reinstall this cuDNN copy from NVIDIA's archive for the CUDA major of your toolkit or framework
