// kp:tune X=ÿş,2
// kp:tune =3 Y=
// kp:constraint X / 0
