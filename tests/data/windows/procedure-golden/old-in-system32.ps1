# cudnn.shadowed (warning)
In a terminal run as administrator, move these DLLs out of C:\windows\system32 (a stray hand copy: no installer puts cuDNN there, and it is searched before PATH):
mkdir C:\cudnn-aside\system32
move C:\windows\system32\cudnn64_9.dll C:\cudnn-aside\system32
move C:\windows\system32\cudnn_graph64_9.dll C:\cudnn-aside\system32
